package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Tables the database protects itself: a trigger on each refuses a write whose fence is older than
 * the fence table's, or that carries none, whoever sends it. The client guard may be switched off
 * ({@code checkInClient(false)}); the database still refuses the stale holder.
 */
class ProtectedTablesTest {

    private static final String RESOURCE = "stock:apple";

    @AfterEach
    void noFenceLeaks() {
        assertThat(FencingContext.all()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aWriteWithoutAFenceIsRefusedByTheDatabaseUnlessTheSessionBypassesOnPurpose(TestDatabase database)
            throws SQLException {
        try (ProtectedStock stock = new ProtectedStock(database)) {
            try (Connection plain = database.dataSource().getConnection()) {
                assertThatThrownBy(() -> stock.setQty(plain, 1))
                        .isInstanceOf(SQLException.class)
                        .satisfies(refusal -> assertThat(FenceProtection.kind(FenceProtection.refusal(refusal)))
                                .isEqualTo(FenceProtection.NO_FENCE));
                bypass(database, plain);
                stock.setQty(plain, 2);
            }
            assertThat(stock.fixture.qty("apple")).isEqualTo(2L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aStaleHolderIsRefusedByTheDatabaseWhenTheClientLeavesTheCheckToIt(TestDatabase database) throws SQLException {
        try (ProtectedStock stock = new ProtectedStock(database)) {
            stock.newHolderWrites(7, "pear", 1);
            FenceGuard databaseOnly = stock.guard().checkInClient(false).build();
            try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 5, null));
                    Connection connection =
                            new FencedDataSource(stock.fixture.dataSource, databaseOnly).getConnection()) {
                connection.setAutoCommit(false);
                assertThatThrownBy(() -> stock.setQty(connection, 1))
                        .isInstanceOf(FencingTokenRejectedException.class)
                        .satisfies(refused -> {
                            FencingTokenRejectedException rejection = (FencingTokenRejectedException) refused;
                            assertThat(rejection.refusedBy())
                                    .isEqualTo(FencingTokenRejectedException.RefusedBy.PROTECTED_TABLE);
                            assertThat(rejection.getAcceptedToken()).hasValue(7);
                        });
                connection.rollback();
            }
            assertThat(stock.fixture.qty("apple")).isEqualTo(100L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aFenceThatDoesNotFenceNeverReachesAProtectedTableWhoeverChecks(TestDatabase database) throws SQLException {
        try (ProtectedStock stock = new ProtectedStock(database)) {
            stock.newHolderWrites(7, "pear", 1);
            // A larger token than the table's: only its store's failover could make it a second holder's.
            StubLease redis = new StubLease(RESOURCE, 9).withoutFencing();
            for (boolean checkInClient : new boolean[] {true, false}) {
                FenceGuard guard = stock.guard().checkInClient(checkInClient).build();
                try (FencingContext.Scope fence = FencingContext.open(redis.lease());
                        Connection connection = new FencedDataSource(stock.fixture.dataSource, guard).getConnection()) {
                    connection.setAutoCommit(false);
                    assertThatThrownBy(() -> stock.setQty(connection, 1))
                            .isInstanceOf(FencingTokenRejectedException.class)
                            .hasMessageContaining("not a fencing token")
                            .satisfies(refused -> assertThat(((FencingTokenRejectedException) refused).refusedBy())
                                    .isEqualTo(FencingTokenRejectedException.RefusedBy.CLIENT));
                    connection.rollback();
                }
            }
            assertThat(stock.fixture.qty("apple")).isEqualTo(100L);
            assertThat(stock.fixture.storedToken(RESOURCE)).isEqualTo(7L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void theCurrentHolderWritesThroughTheDatabasesOwnCheck(TestDatabase database) throws SQLException {
        try (ProtectedStock stock = new ProtectedStock(database)) {
            stock.newHolderWrites(7, "pear", 1);
            for (boolean checkInClient : new boolean[] {true, false}) {
                FenceGuard guard = stock.guard().checkInClient(checkInClient).build();
                try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                        Connection connection = new FencedDataSource(stock.fixture.dataSource, guard).getConnection()) {
                    connection.setAutoCommit(false);
                    stock.setQty(connection, checkInClient ? 10 : 11);
                    stock.setQty(connection, checkInClient ? 20 : 21); // checked once per transaction
                    connection.commit();
                }
            }
            assertThat(stock.fixture.qty("apple")).isEqualTo(21L);
            assertThat(stock.fixture.storedToken(RESOURCE)).isEqualTo(9L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aTransactionNestedInAFencedOneIsRefusedAtOnceInsteadOfWaitingForItsOwnThread(TestDatabase database)
            throws SQLException {
        try (ProtectedStock stock = new ProtectedStock(database)) {
            DataSource fenced =
                    new FencedDataSource(stock.fixture.dataSource, stock.guard().build());
            try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                    Connection outer = fenced.getConnection();
                    Connection inner = fenced.getConnection()) {
                outer.setAutoCommit(false);
                inner.setAutoCommit(false);
                stock.setQty(outer, 99);
                assertThatThrownBy(() -> stock.fixture.setQty(inner, "pear", 98))
                        .isInstanceOf(LockException.class)
                        .hasMessageContaining("nested");
                inner.rollback();
                outer.commit();
            }
            assertThat(stock.fixture.qty("apple")).isEqualTo(99L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void instancesThatStartTogetherAllProtectTheSameTables(TestDatabase database) throws Exception {
        try (ProtectedStock stock = new ProtectedStock(database)) {
            for (int round = 0; round < 10; round++) {
                allAtOnce(connection -> stock.guard().build().protectTables(connection), stock.fixture.dataSource);
            }
            try (Connection connection = stock.fixture.dataSource.getConnection()) {
                assertThat(stock.guard().build().unprotectedTables(connection)).isEmpty();
                assertThatThrownBy(() -> stock.setQty(connection, 1)).isInstanceOf(SQLException.class);
            }
            assertThat(stock.fixture.qty("apple")).isEqualTo(100L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void instancesThatStartTogetherAllCreateTheSameFenceTable(TestDatabase database) throws Exception {
        DataSource dataSource = database.dataSource();
        for (int round = 0; round < 10; round++) {
            String table = "fence_start_" + round + "_" + Long.toHexString(System.nanoTime());
            FenceGuard guard = FenceGuard.builder().table(table).build();
            try {
                allAtOnce(guard::createTableIfMissing, dataSource);
            } finally {
                try (Connection connection = dataSource.getConnection();
                        Statement statement = connection.createStatement()) {
                    statement.execute("DROP TABLE IF EXISTS " + table);
                }
            }
        }
    }

    /** Runs {@code start} on four connections of {@code dataSource} at once, as replicas starting together. */
    private static void allAtOnce(SqlAction start, DataSource dataSource) throws Exception {
        int instances = 4;
        ExecutorService pool = Executors.newFixedThreadPool(instances);
        try {
            CyclicBarrier together = new CyclicBarrier(instances);
            List<Future<?>> starts = new ArrayList<>();
            for (int i = 0; i < instances; i++) {
                starts.add(pool.submit(() -> {
                    try (Connection connection = dataSource.getConnection()) {
                        together.await(30, TimeUnit.SECONDS);
                        start.run(connection);
                    }
                    return null;
                }));
            }
            for (Future<?> instance : starts) {
                instance.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @FunctionalInterface
    private interface SqlAction {
        void run(Connection connection) throws SQLException;
    }

    static void bypass(TestDatabase database, Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(
                    switch (database) {
                        case POSTGRESQL -> "SET fencelock.bypass = 'on'";
                        case MARIADB -> "SET @fencelock_bypass = 'on'";
                        case H2 -> "SET @FENCELOCK_BYPASS = 'on'";
                    });
        }
    }

    /** The fixture's stock table, protected by its fence table, holding apple (100). */
    static final class ProtectedStock implements AutoCloseable {

        final FenceFixture fixture;

        ProtectedStock(TestDatabase database) throws SQLException {
            this.fixture = new FenceFixture(database);
            try (Connection connection = this.fixture.dataSource.getConnection()) {
                this.fixture.insertStock(connection, "apple", 100);
                this.fixture.insertStock(connection, "pear", 5);
                guard().build().protectTables(connection);
            }
        }

        FenceGuard.Builder guard() {
            return FenceGuard.builder().table(this.fixture.fenceTable).protectedTables(this.fixture.stockTable);
        }

        /**
         * A holder with {@code token} writes {@code qty} to {@code sku} through a fenced data source
         * that knows the table is protected, on a thread of its own, and commits.
         */
        void newHolderWrites(long token, String sku, int qty) {
            java.util.concurrent.CompletableFuture.runAsync(() -> {
                        try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, token, null));
                                Connection connection = new FencedDataSource(this.fixture.dataSource, guard().build())
                                        .getConnection()) {
                            connection.setAutoCommit(false);
                            this.fixture.setQty(connection, sku, qty);
                            connection.commit();
                        } catch (SQLException ex) {
                            throw new IllegalStateException(ex);
                        }
                    })
                    .join();
        }

        void setQty(Connection connection, int qty) throws SQLException {
            this.fixture.setQty(connection, "apple", qty);
        }

        @Override
        public void close() throws SQLException {
            this.fixture.close();
        }
    }
}
