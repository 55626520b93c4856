package dev.fencelock.sample;

import static dev.fencelock.sample.InventoryClient.problemType;
import static dev.fencelock.sample.InventoryClient.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.FencingContext;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockMode;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.fault.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The inventory API end to end: real etcd, real PostgreSQL, one status code per case. A second
 * {@link LockClient} on the same etcd plays "another instance" where a case needs one.
 */
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            // Each run brings its own etcd, whose revisions start afresh, to a database that keeps the fence
            // rows of earlier runs: a scope per run keeps their tokens apart, as for any two clusters.
            "fencelock.fencing.scope=sample-tests-${random.uuid}",
            "inventory.lock-wait-timeout=3s",
            "spring.datasource.url=${FENCELOCK_PG_URL:jdbc:postgresql://127.0.0.1:5432/fencelock}",
            "spring.datasource.username=fencelock",
            "spring.datasource.password=fencelock"
        })
class InventoryApiTests {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    /** Between this application and etcd, so a case can partition the two (the database stays reachable). */
    private static FaultProxy etcdLink;

    @DynamicPropertySource
    static void etcdEndpoints(DynamicPropertyRegistry registry) {
        registry.add("fencelock.etcd.endpoints", () -> {
            etcdLink = FaultProxy.forEndpoint(etcd.endpoints().get(0));
            return etcdLink.endpoint();
        });
    }

    private static LockClient otherInstance;

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
    private JdbcClient jdbc;

    @Autowired
    private FenceGuard fenceGuard;

    @Autowired
    private LockClient locks;

    @Autowired
    private TransactionTemplate transactions;

    private InventoryClient api;
    private InventoryDatabase database;
    private String sku;

    @BeforeEach
    void newSku() {
        this.api = new InventoryClient(this.port);
        this.database = new InventoryDatabase(this.jdbc, this.fenceGuard);
        this.sku = "test-" + UUID.randomUUID();
        SessionWarmUp.awaitLocking(this.locks);
    }

    private void stock(int quantity) {
        assertThat(this.api.put(this.sku, quantity).getStatusCode()).isEqualTo(HttpStatus.OK);
    }

    @Test
    void putThenGetReturnsTheStockLevel() {
        ResponseEntity<String> put = this.api.put(this.sku, 100);
        assertThat(put.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(put.getBody()).isEqualTo("{\"sku\":\"" + this.sku + "\",\"quantity\":100}");

        ResponseEntity<String> get = this.api.get(this.sku);
        assertThat(get.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat((Integer) read(get, "$.quantity")).isEqualTo(100);
    }

    @Test
    void getOfUnknownSkuIsNotFound() {
        ResponseEntity<String> get = this.api.get(this.sku);
        assertThat(get.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
        assertThat(problemType(get)).isEqualTo("https://fencelock.dev/problems/unknown-sku");
    }

    @Test
    void reservationReducesStockAndRecordsItsTokenInTheRowAndTheFenceTable() {
        stock(10);

        ResponseEntity<String> reserved = this.api.reserve(this.sku, 3, 0);

        assertThat(reserved.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat((Integer) read(reserved, "$.quantity")).isEqualTo(7);
        long token = ((Number) read(reserved, "$.fencingToken")).longValue();
        assertThat(this.database.quantity(this.sku)).isEqualTo(7);
        assertThat(this.database.rowToken(this.sku)).contains(token);
        assertThat(this.database.fenceToken("stock:" + this.sku)).isEqualTo(token);
        assertThat(this.database.reservations(this.sku)).isEqualTo(1);
    }

    @Test
    void holdOutOfRangeNoQuantityOrOverlongSkuIsABadRequest() {
        stock(10);

        for (ResponseEntity<String> response : List.of(
                this.api.reserve(this.sku, 1, 60_001),
                this.api.reserve(this.sku, 1, -1),
                this.api.reserve(this.sku, 0, 0),
                this.api.put("x".repeat(65), 1),
                this.api.reserveWithBody(this.sku, "not json"))) {
            assertThat(response.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
            assertThat(problemType(response)).isEqualTo("https://fencelock.dev/problems/invalid-request");
        }
        assertThat(this.database.quantity(this.sku)).isEqualTo(10);
    }

    @Test
    void reservingMoreThanTheStockIsUnprocessableAndChangesNothing() {
        stock(2);

        ResponseEntity<String> response = this.api.reserve(this.sku, 3, 0);

        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.UNPROCESSABLE_CONTENT);
        assertThat(problemType(response)).isEqualTo("https://fencelock.dev/problems/insufficient-stock");
        assertThat(this.database.quantity(this.sku)).isEqualTo(2);
        assertThat(this.database.reservations(this.sku)).isZero();
    }

    @Test
    void lockHeldElsewhereForTheWholeWaitTimeoutIsLocked() {
        stock(5);

        ResponseEntity<String> response;
        try (LockLease held = otherInstance.acquire(LockRequest.of("stock:" + this.sku))) {
            response = this.api.reserve(this.sku, 1, 0);
        }

        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.LOCKED);
        assertThat(problemType(response)).isEqualTo("https://fencelock.dev/problems/lock-timeout");
        assertThat(this.database.quantity(this.sku)).isEqualTo(5);
    }

    /**
     * An operator force-releases the lock (as the actuator endpoint does) while the app holds it
     * between its read and its write: the app learns it within one watch event, stops, and refuses
     * its write itself.
     */
    @Test
    void lockForceReleasedWhileTheReservationRunsIsRefusedByTheInstanceItself() throws Exception {
        String resource = "stock:" + this.sku;
        stock(10);
        long before = this.database.fenceToken(resource);

        // A hold far longer than the force-release takes on a loaded machine; losing the lock ends it.
        CompletableFuture<ResponseEntity<String>> pending =
                CompletableFuture.supplyAsync(() -> this.api.reserve(this.sku, 1, 30_000));
        await().atMost(Duration.ofSeconds(30)).until(() -> this.database.fenceToken(resource) > before);
        otherInstance
                .administration()
                .orElseThrow()
                .forceRelease(ResourceName.of(resource, 255))
                .get(30, TimeUnit.SECONDS);

        ResponseEntity<String> response = pending.get(30, TimeUnit.SECONDS);
        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
        assertThat(problemType(response)).isEqualTo("https://fencelock.dev/problems/lock-lost");
        assertThat((String) read(response, "$.refusedBy")).isEqualTo("client");
        assertThat(this.database.quantity(this.sku)).isEqualTo(10);
    }

    /**
     * The zombie that only the database can stop: while the app holds the lock between its read and
     * its write, it is cut off from etcd (not from the database), an operator force-releases its lock,
     * and another instance takes the lock and writes with a larger token. The app cannot learn of
     * it and its lease is within its deadline, so it still believes it holds the lock; the database
     * refuses its write.
     */
    @Test
    void writeWithATokenOlderThanTheLastAcceptedIsAConflictAndChangesNothing() throws Exception {
        String resource = "stock:" + this.sku;
        stock(10);
        long before = this.database.fenceToken(resource);

        // The time the test has to take the lock away and write before the app writes: seconds on a
        // loaded machine. Cut off from etcd, the app cannot end its hold sooner; its 30 s lease outlasts it.
        CompletableFuture<ResponseEntity<String>> pending =
                CompletableFuture.supplyAsync(() -> this.api.reserve(this.sku, 1, 10_000));
        await().atMost(Duration.ofSeconds(30)).until(() -> this.database.fenceToken(resource) > before);
        long appToken = this.database.fenceToken(resource);
        // This instance is cut off from etcd, not from the database: it cannot learn that its lock
        // is taken (its lease is still within its deadline), so only the database can refuse it.
        etcdLink.blackhole();

        otherInstance
                .administration()
                .orElseThrow()
                .forceRelease(ResourceName.of(resource, 255))
                .get(30, TimeUnit.SECONDS);
        long newerToken;
        try (LockLease lease = otherInstance.acquire(LockRequest.of(resource));
                FencingContext.Scope fence = FencingContext.open(lease)) {
            newerToken = lease.fencingToken();
            this.transactions.executeWithoutResult(status -> this.jdbc
                    .sql("UPDATE inventory_stock SET fence_token = ? WHERE sku = ? AND fence_token <= ?")
                    .params(newerToken, this.sku, newerToken)
                    .update());
        }

        ResponseEntity<String> response;
        try {
            response = pending.get(30, TimeUnit.SECONDS);
        } finally {
            etcdLink.restore();
        }
        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
        assertThat(problemType(response)).isEqualTo("https://fencelock.dev/problems/stale-fencing-token");
        assertThat((String) read(response, "$.refusedBy")).isEqualTo("database");
        assertThat(((Number) read(response, "$.fencingToken")).longValue()).isEqualTo(appToken);
        assertThat(newerToken).isGreaterThan(appToken);
        assertThat(this.database.fenceToken(resource)).isEqualTo(newerToken);
        assertThat(this.database.rowToken(this.sku)).contains(newerToken);
        assertThat(this.database.quantity(this.sku)).isEqualTo(10);
        assertThat(this.database.reservations(this.sku)).isZero();
    }

    /** A read waits for a reservation that is between its read and its write, and shows its result. */
    @Test
    void aReadWaitsForAReservationInProgressAndShowsItsResult() throws Exception {
        String resource = "stock:" + this.sku;
        stock(10);
        long before = this.database.fenceToken(resource);

        // Long enough that the read below starts while the reservation holds the lock on a loaded machine.
        CompletableFuture<ResponseEntity<String>> pending =
                CompletableFuture.supplyAsync(() -> this.api.reserve(this.sku, 3, 5_000));
        await().atMost(Duration.ofSeconds(30)).until(() -> this.database.fenceToken(resource) > before);
        // The reservation has read 10 and holds the lock; without the shared lock this read would say 10.
        ResponseEntity<String> get = this.api.get(this.sku);

        assertThat(get.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat((Integer) read(get, "$.quantity")).isEqualTo(7);
        assertThat(pending.get(30, TimeUnit.SECONDS).getStatusCode()).isEqualTo(HttpStatus.OK);
    }

    @Test
    void readsShareTheLockWithOtherReadersButWaitForAWriter() {
        String resource = "stock:" + this.sku;
        stock(4);

        try (LockLease reader = otherInstance.acquire(
                LockRequest.builder(resource).mode(LockMode.SHARED).build())) {
            ResponseEntity<String> get = this.api.get(this.sku);
            assertThat(get.getStatusCode()).isEqualTo(HttpStatus.OK);
            assertThat((Integer) read(get, "$.quantity")).isEqualTo(4);
        }
        try (LockLease writer = otherInstance.acquire(LockRequest.of(resource))) {
            ResponseEntity<String> get = this.api.get(this.sku);
            assertThat(get.getStatusCode()).isEqualTo(HttpStatus.LOCKED);
        }
    }

    @Test
    void aTransferMovesStockUnderBothSkusLocksAndFencesBothRows() {
        String target = this.sku + "-target";
        stock(10);
        assertThat(this.api.put(target, 5).getStatusCode()).isEqualTo(HttpStatus.OK);

        ResponseEntity<String> transfer = this.api.transfer(this.sku, target, 4);

        assertThat(transfer.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat((Integer) read(transfer, "$.from.quantity")).isEqualTo(6);
        assertThat((Integer) read(transfer, "$.to.quantity")).isEqualTo(9);
        assertThat(this.database.quantity(this.sku)).isEqualTo(6);
        assertThat(this.database.quantity(target)).isEqualTo(9);
        // Each row carries its own SKU's token, and the fence table got both.
        assertThat(this.database.rowToken(this.sku)).contains(this.database.fenceToken("stock:" + this.sku));
        assertThat(this.database.rowToken(target)).contains(this.database.fenceToken("stock:" + target));
        assertThat(this.api.transfer(this.sku, this.sku, 1).getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
    }

    @Test
    void oppositeTransfersAtOnceNeverDeadlock() throws Exception {
        String other = this.sku + "-other";
        stock(50);
        assertThat(this.api.put(other, 50).getStatusCode()).isEqualTo(HttpStatus.OK);

        List<CompletableFuture<ResponseEntity<String>>> transfers = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            boolean forth = i % 2 == 0;
            transfers.add(CompletableFuture.supplyAsync(
                    () -> forth ? this.api.transfer(this.sku, other, 1) : this.api.transfer(other, this.sku, 1)));
        }
        for (CompletableFuture<ResponseEntity<String>> transfer : transfers) {
            assertThat(transfer.get(30, TimeUnit.SECONDS).getStatusCode()).isEqualTo(HttpStatus.OK);
        }
        assertThat(this.database.quantity(this.sku)).isEqualTo(50);
        assertThat(this.database.quantity(other)).isEqualTo(50);
    }

    @Test
    void aTransferWhoseSecondLockStaysBusyTakesNeither() {
        String target = this.sku + "-busy";
        stock(10);
        assertThat(this.api.put(target, 5).getStatusCode()).isEqualTo(HttpStatus.OK);

        ResponseEntity<String> transfer;
        try (LockLease held = otherInstance.acquire(LockRequest.of("stock:" + target))) {
            transfer = this.api.transfer(this.sku, target, 1);
            // The first SKU's lock was taken and given back.
            otherInstance.tryAcquire("stock:" + this.sku).orElseThrow().release();
        }

        assertThat(transfer.getStatusCode()).isEqualTo(HttpStatus.LOCKED);
        assertThat(this.database.quantity(this.sku)).isEqualTo(10);
        assertThat(this.database.quantity(target)).isEqualTo(5);
    }

    @Test
    void theSummaryRunsOnlyWhileOneOfItsTwoPermitsIsFree() {
        stock(3);
        LockRequest permit = LockRequest.builder("inventory-summary").permits(2).build();

        try (LockLease first = otherInstance.acquire(permit)) {
            try (LockLease second = otherInstance.acquire(permit)) {
                assertThat(this.api.summary().getStatusCode()).isEqualTo(HttpStatus.LOCKED);
            }
            ResponseEntity<String> summary = this.api.summary();
            assertThat(summary.getStatusCode()).isEqualTo(HttpStatus.OK);
            assertThat(((Number) read(summary, "$.skus")).longValue()).isPositive();
            assertThat(((Number) read(summary, "$.units")).longValue()).isGreaterThanOrEqualTo(3);
        }
    }
}
