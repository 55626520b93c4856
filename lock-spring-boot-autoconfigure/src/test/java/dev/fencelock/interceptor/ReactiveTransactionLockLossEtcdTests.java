package dev.fencelock.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.LockLostException;
import dev.fencelock.ResourceName;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.r2dbc.FencedConnectionFactory;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * A reactive transaction inside a locked {@code Mono}, through Spring's {@link
 * R2dbcTransactionManager} on a fenced connection factory: the lock is outside the transaction, so
 * a lock lost while the transaction runs cancels it before it commits, and what it wrote is rolled
 * back, as a blocking method's transaction is refused its commit.
 */
class ReactiveTransactionLockLossEtcdTests {

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
            statement.execute("INSERT INTO " + this.stockTable + " (sku, qty) VALUES ('pear', 5)");
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

    @Test
    void aLockLostWhileItsReactiveTransactionRunsRollsTheTransactionBack() {
        ConnectionFactory fenced = new FencedConnectionFactory(ConnectionFactories.get(R2DBC_URL), guard());
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class))
                .withPropertyValues(
                        "fencelock.etcd.endpoints=" + String.join(",", etcd.endpoints()), "fencelock.lease-ttl=30s")
                .withBean(StockService.class, () -> new StockService(fenced, this.stockTable))
                .run(context -> {
                    StockService service = context.getBean(StockService.class);
                    LockClient operator = context.getBean(LockClient.class);
                    CountDownLatch written = new CountDownLatch(1);

                    StepVerifier.create(service.writeAndWait("pear", 99, written))
                            .expectSubscription()
                            .then(() -> {
                                await(written);
                                // As an operator's force-release, or an expired lease, would take it.
                                operator.administration()
                                        .orElseThrow()
                                        .forceRelease(ResourceName.of("stock:pear", 255))
                                        .join();
                            })
                            .expectErrorSatisfies(failure -> assertThat(failure)
                                    .isInstanceOf(LockLostException.class)
                                    .hasMessageContaining("'stock:pear'"))
                            .verify(HANG);

                    // The update was written in the transaction, and the transaction never committed.
                    assertThat(qty("pear")).isEqualTo(5);
                });
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(HANG.toSeconds(), TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private long qty(String sku) throws SQLException {
        try (java.sql.Connection connection = DriverManager.getConnection(JDBC_URL, "fencelock", "fencelock");
                Statement statement = connection.createStatement();
                var rows =
                        statement.executeQuery("SELECT qty FROM " + this.stockTable + " WHERE sku = '" + sku + "'")) {
            assertThat(rows.next()).isTrue();
            return rows.getLong(1);
        }
    }

    /** Writes in a transaction of Spring's {@link R2dbcTransactionManager}, under the lock. */
    static class StockService {

        private final DatabaseClient database;

        private final TransactionalOperator transactions;

        private final String table;

        StockService(ConnectionFactory fenced, String table) {
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
