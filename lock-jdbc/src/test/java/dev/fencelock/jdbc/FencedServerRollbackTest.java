package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A transaction that the server rolled back on its own, here as the victim of a deadlock, took
 * the fence row's lock with it. The connection stays usable, and an application that catches the
 * error and tries again on it (a catch in the method, a retry on an inner bean) writes in a new
 * transaction: the guard must present the fence again there, and a nested transaction that rode on
 * the rolled-back one must not trust it either.
 */
class FencedServerRollbackTest {

    private static final String RESOURCE = "stock:apple";

    @AfterEach
    void noFenceLeaks() {
        assertThat(FencingContext.all()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"MARIADB", "H2"})
    void aRetryAfterTheServerRolledBackTheTransactionIsGuardedAgain(TestDatabase database) throws Exception {
        try (FenceFixture fixture = seeded(database);
                FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                Connection connection = fenced(fixture).getConnection()) {
            Connection rival = rival(fixture);
            connection.setAutoCommit(false);
            fixture.setQty(connection, "apple", 99); // guard runs: token 9 accepted, fence row locked
            SQLException deadlock = deadlockVictim(fixture, rival, connection);
            assertThat(deadlock.getSQLState()).isEqualTo("40001");

            fixture.newHolderWrites(RESOURCE, 10, "apple", 50);

            // The application retries on the same connection: a new transaction on the server.
            assertThatThrownBy(() -> fixture.setQty(connection, "apple", 1))
                    .isInstanceOf(FencingTokenRejectedException.class);
            connection.rollback();
            assertThat(fixture.qty("apple")).isEqualTo(50L);
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"MARIADB", "H2"})
    void aNestedTransactionDoesNotRideOnOneTheServerRolledBack(TestDatabase database) throws Exception {
        try (FenceFixture fixture = seeded(database);
                FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null))) {
            DataSource fenced = fenced(fixture);
            try (Connection outer = fenced.getConnection();
                    Connection inner = fenced.getConnection()) {
                Connection rival = rival(fixture);
                outer.setAutoCommit(false);
                inner.setAutoCommit(false);
                fixture.setQty(outer, "apple", 99);
                fixture.setQty(inner, "plum", 4); // rides on the outer transaction's fence row lock
                deadlockVictim(fixture, rival, outer);
                fixture.newHolderWrites(RESOURCE, 10, "apple", 50);

                assertThatThrownBy(inner::commit).isInstanceOf(FencingTokenRejectedException.class);
                inner.rollback();
                outer.rollback();
            }
            assertThat(fixture.qty("plum")).isEqualTo(3L);
        }
    }

    /**
     * Another connection that has changed more rows, and holds pear, in a transaction that began
     * before the victim's: InnoDB rolls back the lighter transaction of a deadlock, H2 the younger.
     */
    private static Connection rival(FenceFixture fixture) throws SQLException {
        Connection other = fixture.dataSource.getConnection();
        other.setAutoCommit(false);
        heavy(fixture, other);
        fixture.setQty(other, "pear", 6);
        return other;
    }

    /**
     * Makes {@code victim} (which already holds the fence row and apple) the victim of a deadlock with
     * {@code rival}, and returns the error it got; the server has rolled its transaction back.
     */
    private static SQLException deadlockVictim(FenceFixture fixture, Connection rival, Connection victim)
            throws Exception {
        try (rival) {
            CompletableFuture<SQLException> waiting =
                    CompletableFuture.supplyAsync(() -> failureOf(fixture, rival, "apple"));
            Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> waiting(fixture) > 0);
            SQLException deadlock = failureOf(fixture, victim, "pear");
            assertThat((Object) waiting.get(15, TimeUnit.SECONDS))
                    .as("the rival must not be the victim")
                    .isNull();
            rival.rollback();
            assertThat((Object) deadlock).as("deadlock error").isNotNull();
            return deadlock;
        }
    }

    private static SQLException failureOf(FenceFixture fixture, Connection connection, String sku) {
        try {
            fixture.setQty(connection, sku, 8);
            return null;
        } catch (SQLException ex) {
            return ex;
        }
    }

    private static void heavy(FenceFixture fixture, Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            for (int i = 0; i < 20; i++) {
                statement.executeUpdate(
                        "INSERT INTO " + fixture.stockTable + " (sku, qty) VALUES ('heavy" + i + "', " + i + ")");
            }
        }
    }

    /** How many sessions wait for a lock right now. */
    private static long waiting(FenceFixture fixture) throws SQLException {
        String sql = (fixture.database == TestDatabase.MARIADB)
                ? "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE LIKE '%lock%' OR INFO LIKE"
                        + " 'UPDATE " + fixture.stockTable + "%'"
                : "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL";
        try (Connection connection = fixture.dataSource.getConnection();
                Statement statement = connection.createStatement();
                java.sql.ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static FenceFixture seeded(TestDatabase database) throws SQLException {
        FenceFixture fixture = new FenceFixture(database);
        try (Connection connection = fixture.dataSource.getConnection()) {
            fixture.insertStock(connection, "apple", 100);
            fixture.insertStock(connection, "pear", 5);
            fixture.insertStock(connection, "plum", 3);
        }
        return fixture;
    }

    private static DataSource fenced(FenceFixture fixture) {
        return new FencedDataSource(fixture.dataSource, fixture.guard);
    }
}
