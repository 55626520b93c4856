package dev.fencelock.zookeeper;

import dev.fencelock.LockClient;
import dev.fencelock.LockClientBuilder;
import dev.fencelock.ResourceName;
import dev.fencelock.test.contract.LockBackendContract;
import dev.fencelock.test.zookeeper.ZooKeeperEnsembleExtension;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The ZooKeeper backend against a real server: the same contract as etcd, fencing tokens included. */
class ZooKeeperLockBackendContractTest extends LockBackendContract {

    @RegisterExtension
    static final ZooKeeperEnsembleExtension zookeeper = ZooKeeperEnsembleExtension.members(1);

    private static ZooKeeperLockBackend observer;

    @BeforeAll
    static void startServer() {
        observer = ZooKeeperLockBackend.builder()
                .connectString(zookeeper.connectString())
                .build();
    }

    @AfterAll
    static void stopServer() {
        if (observer != null) {
            observer.close();
        }
    }

    @Override
    protected LockClient createClient(Consumer<LockClientBuilder> customizer) {
        LockClientBuilder builder = LockClient.builder(ZooKeeperLockBackend.builder()
                .connectString(zookeeper.connectString())
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
