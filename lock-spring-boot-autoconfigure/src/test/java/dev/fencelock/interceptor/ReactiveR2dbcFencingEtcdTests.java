package dev.fencelock.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLostException;
import dev.fencelock.ResourceName;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.r2dbc.FencedConnectionFactory;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.reactive.TransactionalOperator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * {@code @DistributedLock} on a {@code Mono} and {@link FencedConnectionFactory} together, on etcd
 * and the local PostgreSQL through R2DBC: the fence the interceptor puts in the Reactor context is
 * the one the database sees.
 */
class ReactiveR2dbcFencingEtcdTests {

    /** A bound for a hung test, not a measure of speed. */
    private static final Duration HANG = Duration.ofSeconds(60);

    private static final String JDBC_URL = "jdbc:postgresql://127.0.0.1:5432/fencelock";

    private static final String R2DBC_URL = "r2dbc:postgresql://fencelock:fencelock@127.0.0.1:5432/fencelock";

    @RegisterExtension
    static EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    private final String fenceTable = "fence_" + this.suffix;

    private final String stockTable = "stock_" + this.suffix;

    @BeforeEach
    void createTables() throws SQLException {
        try (java.sql.Connection connection = DriverManager.getConnection(JDBC_URL, "fencelock", "fencelock");
                Statement statement = connection.createStatement()) {
            guard().createTableIfMissing(connection);
            statement.execute(
                    "CREATE TABLE " + this.stockTable + " (sku VARCHAR(32) PRIMARY KEY, qty BIGINT NOT NULL)");
            statement.execute("INSERT INTO " + this.stockTable + " (sku, qty) VALUES ('apple', 0)");
        }
    }

    @AfterEach
    void dropTables() throws SQLException {
        try (java.sql.Connection connection = DriverManager.getConnection(JDBC_URL, "fencelock", "fencelock");
                Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + this.stockTable);
            statement.execute("DROP TABLE IF EXISTS " + this.fenceTable);
        }
    }

    private FenceGuard guard() {
        return FenceGuard.builder().table(this.fenceTable).build();
    }

    private ApplicationContextRunner runner() {
        ConnectionFactory fenced = new FencedConnectionFactory(ConnectionFactories.get(R2DBC_URL), guard());
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class))
                .withPropertyValues(
                        "fencelock.etcd.endpoints=" + String.join(",", etcd.endpoints()), "fencelock.lease-ttl=30s")
                .withBean(StockService.class, () -> new StockService(fenced, this.stockTable))
                .withBean(
                        TransactionalStockService.class, () -> new TransactionalStockService(fenced, this.stockTable));
    }

    @Test
    void concurrentLockedReadModifyWritesThroughR2dbcLoseNoUpdateAndTheDatabaseKeepsTheLastToken() {
        runner().run(context -> {
            StockService service = context.getBean(StockService.class);
            int calls = 12;
            List<Long> tokens = Flux.range(0, calls)
                    .flatMap(i -> service.increment("apple"), calls)
                    .collectList()
                    .block(HANG);

            // Read, then write the read value plus one: without the lock, overlapping calls lose updates.
            assertThat(readLong("SELECT qty FROM " + this.stockTable + " WHERE sku = 'apple'"))
                    .isEqualTo(calls);
            assertThat(tokens).hasSize(calls).doesNotHaveDuplicates();
            assertThat(readLong("SELECT token FROM " + this.fenceTable + " WHERE resource = 'stock:apple'"))
                    .isEqualTo(tokens.stream().mapToLong(Long::longValue).max().orElseThrow());
        });
    }

    @Test
    void aWriteUnderAnOlderTokenIsRefusedOnceALockedCallHasWritten() {
        runner().run(context -> {
            StockService service = context.getBean(StockService.class);
            long first = service.increment("apple").block(HANG);
            long second = service.increment("apple").block(HANG);
            assertThat(second).isGreaterThan(first);

            // The first call's fence, presented late, as a paused holder would present it.
            Mono<Long> late = service.write("apple", 7)
                    .contextWrite(context2 ->
                            context2.put(FencingContext.CONTEXT_KEY, List.of(new Fence("stock:apple", first, null))));
            assertThat(late.onErrorResume(FencingTokenRejectedException.class, refused -> Mono.just(-1L))
                            .block(HANG))
                    .isEqualTo(-1L);
            assertThat(readLong("SELECT qty FROM " + this.stockTable + " WHERE sku = 'apple'"))
                    .isEqualTo(2);
        });
    }

    /**
     * A reactive transaction of Spring's {@link R2dbcTransactionManager} inside the locked {@code Mono}:
     * the lock is outside the transaction, so a lock lost while it runs cancels it before it commits,
     * and what it wrote is rolled back, as a blocking method's transaction is refused its commit.
     */
    @Test
    void aLockLostWhileItsReactiveTransactionRunsRollsTheTransactionBack() {
        runner().run(context -> {
            TransactionalStockService service = context.getBean(TransactionalStockService.class);
            LockClient operator = context.getBean(LockClient.class);
            CountDownLatch written = new CountDownLatch(1);

            StepVerifier.create(service.writeAndWait("apple", 99, written))
                    .expectSubscription()
                    .then(() -> {
                        try {
                            assertThat(written.await(HANG.toSeconds(), TimeUnit.SECONDS))
                                    .isTrue();
                        } catch (InterruptedException ex) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException(ex);
                        }
                        // As an operator's force-release, or an expired lease, would take it.
                        operator.administration()
                                .orElseThrow()
                                .forceRelease(ResourceName.of("stock:apple", 255))
                                .join();
                    })
                    .expectErrorSatisfies(failure -> assertThat(failure)
                            .isInstanceOf(LockLostException.class)
                            .hasMessageContaining("'stock:apple'"))
                    .verify(HANG);

            // The update was written in the transaction, and the transaction never committed.
            assertThat(readLong("SELECT qty FROM " + this.stockTable + " WHERE sku = 'apple'"))
                    .isEqualTo(0);
        });
    }

    private long readLong(String sql) throws SQLException {
        try (java.sql.Connection connection = DriverManager.getConnection(JDBC_URL, "fencelock", "fencelock");
                Statement statement = connection.createStatement();
                var rows = statement.executeQuery(sql)) {
            assertThat(rows.next()).isTrue();
            return rows.getLong(1);
        }
    }

    /** Stock updated through R2DBC, in one transaction per call. */
    static class StockService {

        private final ConnectionFactory fenced;

        private final String table;

        StockService(ConnectionFactory fenced, String table) {
            this.fenced = fenced;
            this.table = table;
        }

        /** Reads the quantity, writes it plus one; returns the token of the call's fence. */
        @DistributedLock(key = "'stock:' + #sku")
        public Mono<Long> increment(String sku) {
            return inTransaction(connection -> Flux.from(connection
                                    .createStatement("SELECT qty FROM " + this.table + " WHERE sku = $1")
                                    .bind("$1", sku)
                                    .execute())
                            .concatMap(result -> result.map((row, metadata) -> row.get(0, Long.class)))
                            .single()
                            .flatMap(qty -> update(connection, sku, qty + 1)))
                    .then(Mono.deferContextual(view -> {
                        List<Fence> fences = view.get(FencingContext.CONTEXT_KEY);
                        return Mono.just(fences.get(fences.size() - 1).token());
                    }));
        }

        /** Writes a quantity under whatever fence the subscriber's context carries. */
        public Mono<Long> write(String sku, long qty) {
            return inTransaction(connection -> update(connection, sku, qty)).thenReturn(qty);
        }

        private Mono<Long> update(Connection connection, String sku, long qty) {
            return Flux.from(connection
                            .createStatement("UPDATE " + this.table + " SET qty = $1 WHERE sku = $2")
                            .bind("$1", qty)
                            .bind("$2", sku)
                            .execute())
                    .concatMap(result -> result.getRowsUpdated())
                    .reduce(0L, Long::sum);
        }

        private <T> Mono<T> inTransaction(Function<Connection, Mono<T>> work) {
            return Mono.usingWhen(
                    Mono.from(this.fenced.create()),
                    connection -> Mono.from(connection.beginTransaction())
                            .then(work.apply(connection))
                            .flatMap(value ->
                                    Mono.from(connection.commitTransaction()).thenReturn(value)),
                    Connection::close,
                    (connection, failure) ->
                            Mono.from(connection.rollbackTransaction()).then(Mono.from(connection.close())),
                    Connection::close);
        }
    }

    /** Writes in a transaction of Spring's {@link R2dbcTransactionManager}, under the lock. */
    static class TransactionalStockService {

        private final DatabaseClient database;

        private final TransactionalOperator transactions;

        private final String table;

        TransactionalStockService(ConnectionFactory fenced, String table) {
            this.database = DatabaseClient.create(fenced);
            this.transactions = TransactionalOperator.create(new R2dbcTransactionManager(fenced));
            this.table = table;
        }

        /** Updates the row, signals {@code written}, and waits in the open transaction until cancelled. */
        @DistributedLock(key = "'stock:' + #sku")
        public Mono<Long> writeAndWait(String sku, long qty, CountDownLatch written) {
            return this.database
                    .sql("UPDATE " + this.table + " SET qty = :qty WHERE sku = :sku")
                    .bind("qty", qty)
                    .bind("sku", sku)
                    .fetch()
                    .rowsUpdated()
                    .doOnNext(updated -> written.countDown())
                    .then(Mono.<Long>never())
                    .as(this.transactions::transactional);
        }
    }
}
