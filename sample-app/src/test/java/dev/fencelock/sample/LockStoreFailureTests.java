package dev.fencelock.sample;

import static dev.fencelock.sample.InventoryClient.problemType;
import static dev.fencelock.sample.InventoryClient.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.fault.FaultProxy;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The inventory API when etcd goes away: the app reaches etcd through a {@link FaultProxy} that a
 * test cuts, with a short lease so that losing it takes seconds.
 */
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            // Each run brings its own etcd, whose revisions start afresh, to a database that keeps the fence
            // rows of earlier runs: a scope per run keeps their tokens apart, as for any two clusters.
            "fencelock.fencing.scope=sample-tests-${random.uuid}",
            "inventory.lock-wait-timeout=3s",
            "fencelock.lease-ttl=3s",
            "fencelock.etcd.request-timeout=1s",
            "fencelock.etcd.connect-timeout=1s",
            "spring.datasource.url=${FENCELOCK_PG_URL:jdbc:postgresql://127.0.0.1:5432/fencelock}",
            "spring.datasource.username=fencelock",
            "spring.datasource.password=fencelock"
        })
class LockStoreFailureTests {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private static FaultProxy proxy;

    @DynamicPropertySource
    static void etcdThroughProxy(DynamicPropertyRegistry registry) {
        registry.add("fencelock.etcd.endpoints", () -> {
            proxy = FaultProxy.forEndpoint(etcd.endpoints().get(0));
            return proxy.endpoint();
        });
    }

    @AfterAll
    static void closeProxy() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @LocalServerPort
    private int port;

    @Autowired
    private JdbcClient jdbc;

    @Autowired
    private FenceGuard fenceGuard;

    @Autowired
    private LockClient locks;

    private InventoryClient api;
    private InventoryDatabase database;
    private String sku;

    @BeforeEach
    void newSku() {
        this.api = new InventoryClient(this.port);
        this.database = new InventoryDatabase(this.jdbc, this.fenceGuard);
        this.sku = "test-" + UUID.randomUUID();
        SessionWarmUp.awaitLocking(this.locks);
        assertThat(this.api.put(this.sku, 10).getStatusCode()).isEqualTo(HttpStatus.OK);
    }

    @AfterEach
    void healNetwork() {
        proxy.restore();
    }

    /**
     * One test for both cases, in this order, because the network stays cut between them: a
     * client reconnecting after a cut can take longer than a test should wait.
     */
    @Test
    void lockLostMidReservationIsAConflictAndAnUnreachableLockStoreIsServiceUnavailable() throws Exception {
        String resource = "stock:" + this.sku;
        long before = this.database.fenceToken(resource);
        CompletableFuture<ResponseEntity<String>> pending =
                CompletableFuture.supplyAsync(() -> this.api.reserve(this.sku, 1, 60_000));
        await().atMost(Duration.ofSeconds(30)).until(() -> this.database.fenceToken(resource) > before);

        proxy.cut();

        // Ended by the lease's 3 s deadline, long before the 60 s hold would end it.
        ResponseEntity<String> lost = pending.get(30, TimeUnit.SECONDS);
        assertThat(lost.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
        assertThat(problemType(lost)).isEqualTo("https://fencelock.dev/problems/lock-lost");
        assertThat((String) read(lost, "$.refusedBy")).isEqualTo("client");

        ResponseEntity<String> unavailable = this.api.reserve(this.sku, 1, 0);
        assertThat(unavailable.getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
        assertThat(problemType(unavailable)).isEqualTo("https://fencelock.dev/problems/lock-backend-unavailable");

        assertThat(this.database.quantity(this.sku)).isEqualTo(10);
        assertThat(this.database.reservations(this.sku)).isZero();
    }
}
