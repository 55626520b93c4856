package dev.fencelock.etcd;

import dev.fencelock.LockClient;
import dev.fencelock.LockClientBuilder;
import dev.fencelock.test.contract.LockBackendContract;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.fault.FaultProxy;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The etcd backend against a real three-member cluster. Each client reaches etcd through its own
 * {@link FaultProxy}, so freezing a client really cuts it off from the cluster.
 */
class EtcdLockBackendContractTest extends LockBackendContract {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(3);

    private static Client observer;

    private static EtcdLockBackend keyLayout;

    private final Map<LockClient, FaultProxy> proxies = new ConcurrentHashMap<>();

    @BeforeAll
    static void connectObserver() {
        observer = Client.builder()
                .endpoints(etcd.endpoints().toArray(String[]::new))
                .build();
        keyLayout = EtcdLockBackend.builder().client(observer).build();
    }

    @AfterAll
    static void closeObserver() {
        keyLayout.close();
        observer.close();
    }

    @Override
    protected void beforeClientsClose() {
        // Frozen clients get their connection back, so closing revokes their leases at once.
        this.proxies.values().forEach(FaultProxy::restore);
    }

    @Override
    protected void afterClientsClosed() {
        this.proxies.values().forEach(FaultProxy::close);
        this.proxies.clear();
    }

    @Override
    protected LockClient createClient(Consumer<LockClientBuilder> customizer) {
        int member = this.proxies.size() % etcd.cluster().size();
        FaultProxy proxy = FaultProxy.forEndpoint(etcd.cluster().member(member).clientEndpoint());
        EtcdLockBackend backend = EtcdLockBackend.builder()
                .endpoints(proxy.endpoint())
                .requestTimeout(Duration.ofSeconds(3))
                // Frequent re-checks race the watch and the timeouts more often: races show up here.
                .recheckInterval(Duration.ofMillis(20))
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
    protected int keysOf(String resource) {
        try {
            return (int) observer.getKVClient()
                    .get(
                            ByteSequence.from(keyLayout.resourcePrefix(resource), StandardCharsets.UTF_8),
                            GetOption.builder()
                                    .isPrefix(true)
                                    .withCountOnly(true)
                                    .build())
                    .get(30, TimeUnit.SECONDS)
                    .getCount();
        } catch (Exception ex) {
            throw new IllegalStateException("Could not count keys of " + resource, ex);
        }
    }
}
