package dev.fencelock.sample.webflux;

import static dev.fencelock.sample.webflux.StockClient.read;
import static dev.fencelock.sample.webflux.StockClient.readLong;
import static dev.fencelock.sample.webflux.StockDatabase.HANG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.FencingContext.Fence;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.fault.FaultProxy;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * A holder whose lease runs out while it is paused between its read and its write: the application
 * is cut off from etcd, so no keep-alive gets through and etcd expires its lease. The application's
 * own deadline passes first (it counts from the last keep-alive it sent), so it learns of the loss
 * by itself: the reservation is cancelled and answered with a 409, and it never writes, while the
 * next holder takes the lock once etcd has expired the lease and writes with a larger token.
 */
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "fencelock.fencing.scope=webflux-sample-tests-${random.uuid}",
            "spring.r2dbc.url=" + StockApiTests.R2DBC_URL,
            // Short, so that the lease runs out within the test; etcd's TTLs are whole seconds, at least 2.
            "fencelock.lease-ttl=3s"
        })
@Import(TestStockConfiguration.class)
class StockLeaseExpiryTests {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private static FaultProxy etcdLink;

    private static LockClient otherInstance;

    @DynamicPropertySource
    static void etcdEndpoints(DynamicPropertyRegistry registry) {
        registry.add("fencelock.etcd.endpoints", () -> {
            etcdLink = FaultProxy.forEndpoint(etcd.endpoints().get(0));
            return etcdLink.endpoint();
        });
    }

    @BeforeAll
    static void startOtherInstance() {
        otherInstance = LockClient.builder(
                        EtcdLockBackend.builder().endpoints(etcd.endpoints()).build())
                .build();
    }

    @AfterAll
    static void stopOtherInstance() {
        otherInstance.close();
        if (etcdLink != null) {
            etcdLink.close();
        }
    }

    @LocalServerPort
    private int port;

    @Autowired
    private FenceGuard fenceGuard;

    @Autowired
    private LockClient locks;

    @Autowired
    private VirtualTimeScheduler holdClock;

    @Autowired
    private Environment environment;

    @Test
    void aHolderPausedPastItsLeaseStopsByItselfAndTheNextHoldersWriteStays() throws Exception {
        StockClient api = new StockClient(this.port);
        StockDatabase database =
                new StockDatabase(this.environment.getRequiredProperty("spring.r2dbc.url"), this.fenceGuard);
        String sku = "test-" + UUID.randomUUID();
        String resource = "stock:" + sku;
        SessionWarmUp.awaitLocking(this.locks);
        assertThat(api.set(sku, 10).block(HANG).getStatusCode()).isEqualTo(HttpStatus.OK);
        long before = database.fenceToken(resource);
        long holdsScheduled = this.holdClock.getScheduledTaskCount();

        // Paused between its read and its write: the hold ends only when the test advances the clock.
        CompletableFuture<ResponseEntity<String>> paused =
                api.reserve(sku, 1, 60_000).toFuture();
        await().atMost(HANG).until(() -> database.fenceToken(resource) > before);
        await().atMost(HANG).until(() -> this.holdClock.getScheduledTaskCount() > holdsScheduled);
        long pausedToken = database.fenceToken(resource);

        ResponseEntity<String> response;
        long newerToken;
        etcdLink.blackhole();
        try {
            // No keep-alive gets through: the application's deadline passes, and it answers without writing.
            response = paused.get(HANG.toSeconds(), TimeUnit.SECONDS);
            // etcd expires the lease a little later; then the next holder gets the lock.
            try (LockLease lease = otherInstance.acquire(
                    LockRequest.builder(resource).waitTimeout(HANG).build())) {
                newerToken = lease.fencingToken();
                database.write(sku, 100, new Fence(resource, newerToken, lease));
            }
            // The hold would end now; the cancelled reservation has nothing left to write.
            this.holdClock.advanceTimeBy(Duration.ofMinutes(1));
        } finally {
            etcdLink.restore();
        }

        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
        assertThat((String) read(response, "$.type")).isEqualTo("https://fencelock.dev/problems/lock-lost");
        assertThat((String) read(response, "$.refusedBy")).isEqualTo("client");
        assertThat(readLong(response, "$.fencingToken")).isEqualTo(pausedToken);
        assertThat(newerToken).isGreaterThan(pausedToken);
        assertThat(database.quantity(sku)).isEqualTo(100);
        assertThat(database.rowToken(sku)).isEqualTo(newerToken);
        assertThat(database.fenceToken(resource)).isEqualTo(newerToken);
    }
}
