package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A holder frozen inside its transaction (a GC pause, SIGSTOP) keeps the fence row locked. With the
 * guard's idle bound the database ends the frozen holder's session once the transaction has been idle
 * longer than its lease had left, and the next holder gets the row; without it, the next holder waits
 * until its own lock timeout. The next holder here waits up to 20 s; the frozen one's lease has 2 s left.
 */
class FencedIdleTransactionTest {

    private static final String RESOURCE = "stock:apple";

    @AfterEach
    void noFenceLeaks() {
        assertThat(FencingContext.all()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void theDatabaseEndsAFrozenHoldersTransactionAfterItsLeaseAndTheNextHolderProceeds(TestDatabase database)
            throws Exception {
        try (FenceFixture fixture = new FenceFixture(database)) {
            try (Connection seed = fixture.dataSource.getConnection()) {
                fixture.insertStock(seed, "apple", 100);
            }
            Connection frozen = frozenHolder(fixture, true);
            try {
                // The next holder proceeds, once the database ended the frozen one's session.
                CompletableFuture.runAsync(() -> nextHolderWrites(fixture)).get(60, TimeUnit.SECONDS);
                assertThat(fixture.qty("apple")).isEqualTo(50L);
                assertThatThrownBy(() -> fixture.setQty(frozen, "apple", 1)).isInstanceOf(SQLException.class);
            } finally {
                frozen.close();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void withTheCheckLeftToProtectedTablesTheDatabaseStillEndsAFrozenHoldersTransaction(TestDatabase database)
            throws Exception {
        try (ProtectedTablesTest.ProtectedStock stock = new ProtectedTablesTest.ProtectedStock(database)) {
            StubLease lease = new StubLease(RESOURCE, 9);
            lease.expiresAt(Instant.now().plusSeconds(2));
            // The guard checks nothing itself: the protected table's trigger locks the fence row at the write.
            FenceGuard triggersOnly = stock.guard().checkInClient(false).build();
            Connection frozen = new FencedDataSource(stock.fixture.dataSource, triggersOnly).getConnection();
            try {
                try (FencingContext.Scope fence = FencingContext.open(lease.lease())) {
                    frozen.setAutoCommit(false);
                    stock.setQty(frozen, 99);
                }
                CompletableFuture.runAsync(() -> nextFencedHolderWrites(stock)).get(60, TimeUnit.SECONDS);
                assertThat(stock.fixture.qty("apple")).isEqualTo(50L);
            } finally {
                frozen.close();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "MARIADB"})
    void withoutTheBoundTheNextHolderWaitsForTheFrozenOne(TestDatabase database) throws Exception {
        try (FenceFixture fixture = new FenceFixture(database)) {
            try (Connection seed = fixture.dataSource.getConnection()) {
                fixture.insertStock(seed, "apple", 100);
            }
            try (Connection frozen = frozenHolder(fixture, false)) {
                // The test data sources give up a lock wait after 5 s: the frozen holder still has the row.
                try (Connection next = fixture.transaction()) {
                    assertThatThrownBy(() -> fixture.guard.check(next, new Fence(RESOURCE, 10, null)))
                            .isInstanceOf(SQLException.class);
                    next.rollback();
                }
                frozen.rollback();
            }
        }
    }

    /** A holder whose lease has 2 s left presents its fence, writes, and then sends nothing more. */
    private static Connection frozenHolder(FenceFixture fixture, boolean bound) throws SQLException {
        StubLease lease = new StubLease(RESOURCE, 9);
        lease.expiresAt(Instant.now().plusSeconds(2));
        FenceGuard guard = FenceGuard.builder()
                .table(fixture.fenceTable)
                .boundIdleTransactions(bound)
                .build();
        Connection connection = new FencedDataSource(fixture.dataSource, guard).getConnection();
        try (FencingContext.Scope fence = FencingContext.open(lease.lease())) {
            connection.setAutoCommit(false);
            fixture.setQty(connection, "apple", 99);
        }
        return connection;
    }

    /** The next holder, token 10, writes the protected table through the guard and waits up to 20 s for the row. */
    private static void nextFencedHolderWrites(ProtectedTablesTest.ProtectedStock stock) {
        try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 10, null));
                Connection next = new FencedDataSource(
                                stock.fixture.dataSource, stock.guard().build())
                        .getConnection()) {
            next.setAutoCommit(false);
            try (Statement statement = next.createStatement()) {
                statement.execute(
                        stock.fixture.database == TestDatabase.POSTGRESQL
                                ? "SET lock_timeout = '20s'"
                                : "SET SESSION innodb_lock_wait_timeout = 20");
            }
            stock.setQty(next, 50);
            next.commit();
        } catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static void nextHolderWrites(FenceFixture fixture) {
        try (Connection next = fixture.dataSource.getConnection()) {
            next.setAutoCommit(false);
            try (Statement statement = next.createStatement()) {
                statement.execute(
                        fixture.database == TestDatabase.POSTGRESQL
                                ? "SET lock_timeout = '20s'"
                                : "SET SESSION innodb_lock_wait_timeout = 20");
            }
            fixture.guard.check(next, new Fence(RESOURCE, 10, null));
            fixture.setQty(next, "apple", 50);
            next.commit();
        } catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
