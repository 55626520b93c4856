package dev.fencelock.zookeeper;

import dev.fencelock.LockClient;
import dev.fencelock.LockClientBuilder;
import dev.fencelock.ResourceName;
import dev.fencelock.test.contract.LockBackendContract;
import dev.fencelock.test.zookeeper.ZooKeeperEnsemble;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The ZooKeeper backend against a real server: the same contract as etcd, fencing tokens included. */
class ZooKeeperLockBackendContractTest extends LockBackendContract {

    private static ZooKeeperEnsemble ensemble;

    private static ZooKeeperLockBackend observer;

    @BeforeAll
    static void startServer() {
        ensemble = ZooKeeperEnsemble.standalone();
        observer = ZooKeeperLockBackend.builder()
                .connectString(ensemble.connectString())
                .build();
    }

    @AfterAll
    static void stopServer() {
        if (observer != null) {
            observer.close();
        }
        if (ensemble != null) {
            ensemble.close();
        }
    }

    @Override
    protected LockClient createClient(Consumer<LockClientBuilder> customizer) {
        LockClientBuilder builder = LockClient.builder(ZooKeeperLockBackend.builder()
                .connectString(ensemble.connectString())
                .build());
        customizer.accept(builder);
        return builder.build();
    }

    @Override
    protected void freezeRenewals(LockClient client) {
        ((ZooKeeperLockBackend) client.backend()).pauseRenewals();
    }

    /** A heartbeat period (a quarter) and the margin (a tenth) less than the session timeout. */
    @Override
    protected double leaseTrustedShare() {
        return 0.65;
    }

    @Override
    protected int keysOf(String resource) {
        try {
            return observer.queue(ResourceName.of(resource, ResourceName.DEFAULT_MAX_LENGTH))
                    .get(30, TimeUnit.SECONDS)
                    .size();
        } catch (Exception ex) {
            throw new IllegalStateException("Could not count the nodes of " + resource, ex);
        }
    }
}
