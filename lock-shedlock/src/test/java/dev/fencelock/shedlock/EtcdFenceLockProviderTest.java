package dev.fencelock.shedlock;

import dev.fencelock.LockClient;
import dev.fencelock.LockClientBuilder;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.fault.FaultProxy;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The ShedLock provider on a real etcd. Each client reaches etcd through its own {@link
 * FaultProxy}, so a frozen client is really cut off, as a dead process would be.
 */
class EtcdFenceLockProviderTest extends FenceLockProviderContract {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private final Map<LockClient, FaultProxy> proxies = new ConcurrentHashMap<>();

    @AfterEach
    void reconnectFrozenClients() {
        // Runs before the contract closes the clients: closing then deletes their keys at once.
        this.proxies.values().forEach(FaultProxy::restore);
    }

    @Override
    protected void afterClientsClosed() {
        this.proxies.values().forEach(FaultProxy::close);
        this.proxies.clear();
    }

    @Override
    protected LockClient createClient(Consumer<LockClientBuilder> customizer) {
        FaultProxy proxy = FaultProxy.forEndpoint(etcd.endpoints().get(0));
        EtcdLockBackend backend = EtcdLockBackend.builder()
                .endpoints(proxy.endpoint())
                .requestTimeout(Duration.ofSeconds(3))
                .build();
        LockClientBuilder builder = LockClient.builder(backend);
        customizer.accept(builder);
        LockClient client = builder.build();
        this.proxies.put(client, proxy);
        return client;
    }

    @Override
    protected void freezeRenewals(LockClient client) {
        this.proxies.get(client).blackhole();
    }

    @Override
    protected int fuzzIterations() {
        return 40;
    }
}
