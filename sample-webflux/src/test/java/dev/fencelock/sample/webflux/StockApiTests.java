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
import dev.fencelock.ResourceName;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.fault.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
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
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The reactive stock API end to end, over HTTP to a server on a random port: real etcd, real
 * PostgreSQL through R2DBC. A second {@link LockClient} on the same etcd plays another instance.
 */
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            // Each run brings its own etcd, whose revisions start afresh, to a database that keeps the fence
            // rows of earlier runs: a scope per run keeps their tokens apart, as for any two clusters.
            "fencelock.fencing.scope=webflux-sample-tests-${random.uuid}",
            "spring.r2dbc.url=" + StockApiTests.R2DBC_URL
        })
@Import(TestStockConfiguration.class)
class StockApiTests {

    static final String R2DBC_URL = "${FENCELOCK_PG_R2DBC_URL:r2dbc:postgresql://127.0.0.1:5432/fencelock}";

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    /** Between this application and etcd, so a case can cut the two apart (the database stays reachable). */
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
    private HeldIntervals heldIntervals;

    @Autowired
    private Environment environment;

    private StockClient api;

    private StockDatabase database;

    private String sku;

    @BeforeEach
    void newSku() {
        this.api = new StockClient(this.port);
        this.database = new StockDatabase(this.environment.getRequiredProperty("spring.r2dbc.url"), this.fenceGuard);
        this.sku = "test-" + UUID.randomUUID();
        SessionWarmUp.awaitLocking(this.locks);
    }

    private void stock(int quantity) {
        assertThat(this.api.set(this.sku, quantity).block(HANG).getStatusCode()).isEqualTo(HttpStatus.OK);
    }

    private String resource() {
        return "stock:" + this.sku;
    }

    @Test
    void concurrentReservationsOfOneSkuTakeTurnsAndLoseNoUpdate() {
        int start = 100;
        int reservations = 8;
        stock(start);

        // All at once; each reads the level and writes it less one, so two at a time would lose one.
        List<ResponseEntity<String>> responses = Flux.range(0, reservations)
                .flatMap(i -> this.api.reserve(this.sku, 1, 0), reservations)
                .collectList()
                .block(HANG);

        assertThat(responses)
                .allSatisfy(response -> assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK));
        assertThat(this.database.quantity(this.sku)).isEqualTo(start - reservations);
        assertThat(responses.stream().map(response -> readLong(response, "$.quantity")))
                .containsExactlyInAnyOrderElementsOf(
                        LongStream.range(start - reservations, start).boxed().toList());
        List<HeldIntervals.Interval> held = this.heldIntervals.of(this.sku);
        assertThat(held).hasSize(reservations);
        for (int i = 1; i < held.size(); i++) {
            assertThat(held.get(i).start())
                    .as("reservation %d started after reservation %d ended", i, i - 1)
                    .isGreaterThan(held.get(i - 1).end());
        }
    }

    @Test
    void eachReservationWritesWithALargerTokenThanTheOneBefore() {
        stock(10);

        long previous = this.database.fenceToken(resource());
        for (int i = 0; i < 3; i++) {
            ResponseEntity<String> reserved = this.api.reserve(this.sku, 1, 0).block(HANG);
            assertThat(reserved.getStatusCode()).isEqualTo(HttpStatus.OK);
            long token = readLong(reserved, "$.fencingToken");
            assertThat(token).isGreaterThan(previous);
            assertThat(this.database.rowToken(this.sku)).isEqualTo(token);
            assertThat(this.database.fenceToken(resource())).isEqualTo(token);
            previous = token;
        }
        assertThat(this.database.quantity(this.sku)).isEqualTo(7);
    }

    @Test
    void aClientThatDisconnectsWhileTheReservationHoldsTheLockReleasesIt() {
        stock(10);
        long before = this.database.fenceToken(resource());

        // A hold that never ends by itself: the virtual clock is not advanced while the client is connected.
        Disposable client = this.api.reserve(this.sku, 1, 60_000).subscribe();
        await().atMost(HANG).until(() -> this.database.fenceToken(resource()) > before);
        assertThat(otherInstance.tryAcquire(resource())).isEmpty();

        client.dispose();

        // The bound is a hang guard: only the disconnect can give the lock back.
        await().atMost(HANG).until(() -> {
            Optional<LockLease> lease = otherInstance.tryAcquire(resource());
            lease.ifPresent(LockLease::release);
            return lease.isPresent();
        });
        // The cancelled reservation wrote nothing, and does not write once its hold would have ended.
        this.holdClock.advanceTimeBy(Duration.ofMinutes(1));
        assertThat(this.database.quantity(this.sku)).isEqualTo(10);
        assertThat(this.api.reserve(this.sku, 1, 0).block(HANG).getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(this.database.quantity(this.sku)).isEqualTo(9);
    }

    /**
     * The zombie only the database can stop: while the reservation holds the lock between its read and
     * its write, the application is cut off from etcd (not from the database), its lock is taken from
     * it (as an expired lease would be: an operator's force-release deletes its key), and another
     * instance takes the lock and writes with a larger token. The application cannot learn of it, so
     * it still believes it holds the lock; when it goes on, the database refuses its R2DBC write.
     */
    @Test
    void aFrozenHoldersLateWriteIsRefusedByTheDatabaseAndTheNewHoldersWriteStays() throws Exception {
        stock(10);
        long before = this.database.fenceToken(resource());
        long holdsScheduled = this.holdClock.getScheduledTaskCount();

        CompletableFuture<ResponseEntity<String>> frozen =
                this.api.reserve(this.sku, 1, 60_000).toFuture();
        await().atMost(HANG).until(() -> this.database.fenceToken(resource()) > before);
        await().atMost(HANG).until(() -> this.holdClock.getScheduledTaskCount() > holdsScheduled);
        long frozenToken = this.database.fenceToken(resource());

        ResponseEntity<String> response;
        long newerToken;
        etcdLink.blackhole();
        try {
            otherInstance
                    .administration()
                    .orElseThrow()
                    .forceRelease(ResourceName.of(resource(), 255))
                    .get(HANG.toSeconds(), TimeUnit.SECONDS);
            try (LockLease lease = otherInstance.acquire(LockRequest.of(resource()))) {
                newerToken = lease.fencingToken();
                this.database.write(this.sku, 100, new Fence(resource(), newerToken, lease));
            }
            // The frozen holder wakes up and writes what it computed from its read: 9.
            this.holdClock.advanceTimeBy(Duration.ofMinutes(1));
            response = frozen.get(HANG.toSeconds(), TimeUnit.SECONDS);
        } finally {
            etcdLink.restore();
        }

        assertThat(newerToken).isGreaterThan(frozenToken);
        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
        assertThat((String) read(response, "$.type")).isEqualTo("https://fencelock.dev/problems/stale-fencing-token");
        assertThat((String) read(response, "$.refusedBy")).isEqualTo("database");
        assertThat(readLong(response, "$.fencingToken")).isEqualTo(frozenToken);
        assertThat(readLong(response, "$.acceptedToken")).isEqualTo(newerToken);
        assertThat(this.database.quantity(this.sku)).isEqualTo(100);
        assertThat(this.database.rowToken(this.sku)).isEqualTo(newerToken);
        assertThat(this.database.fenceToken(resource())).isEqualTo(newerToken);
    }

    @Test
    void unknownSkuIsNotFoundAndTooLargeAReservationIsUnprocessable() {
        ResponseEntity<String> unknown = this.api.reserve(this.sku, 1, 0).block(HANG);
        assertThat(unknown.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
        assertThat((String) read(unknown, "$.type")).isEqualTo("https://fencelock.dev/problems/unknown-sku");

        stock(2);
        ResponseEntity<String> tooMany = this.api.reserve(this.sku, 3, 0).block(HANG);
        assertThat(tooMany.getStatusCode()).isEqualTo(HttpStatus.UNPROCESSABLE_CONTENT);
        assertThat((String) read(tooMany, "$.type")).isEqualTo("https://fencelock.dev/problems/insufficient-stock");
        assertThat(this.database.quantity(this.sku)).isEqualTo(2);

        ResponseEntity<String> level = this.api.level(this.sku).block(HANG);
        assertThat(level.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(readLong(level, "$.quantity")).isEqualTo(2);
    }
}
