package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * MariaDB statements that start with {@code SET} but are not settings: {@code SET STATEMENT … FOR
 * <statement>} runs the statement after {@code FOR}, {@code SET @v = f()} runs a function that may
 * write, and {@code SET PASSWORD} commits implicitly. Each case first seeds the fence table with
 * token 7; the holder under test has token 5 (stale) or 9 (current, until a newer holder writes).
 */
class FencedSetStatementTest {

    private static final String RESOURCE = "stock:apple";

    private static final TestDatabase DATABASE = TestDatabase.MARIADB;

    @AfterEach
    void noFenceLeaks() {
        assertThat(FencingContext.all()).isEmpty();
    }

    @Test
    void aStatementAfterSetStatementForIsGuarded() throws SQLException {
        try (FenceFixture fixture = seeded()) {
            assertThatThrownBy(() -> staleHolderRuns(
                            fixture,
                            "SET STATEMENT max_statement_time=5 FOR UPDATE " + fixture.stockTable
                                    + " SET qty = 1 WHERE sku = 'apple'"))
                    .isInstanceOf(FencingTokenRejectedException.class);
            assertThat(fixture.qty("apple")).isEqualTo(100L);
        }
    }

    @Test
    void aStatementAfterSetStatementForIsRefusedLocallyOnceTheLeaseIsLost() throws SQLException {
        try (FenceFixture fixture = seeded()) {
            StubLease lease = new StubLease(RESOURCE, 9);
            lease.lose();
            try (FencingContext.Scope fence = FencingContext.open(lease.lease());
                    Connection connection = fenced(fixture).getConnection();
                    Statement statement = connection.createStatement()) {
                connection.setAutoCommit(false);
                assertThatThrownBy(() -> statement.execute("SET STATEMENT max_statement_time=5 FOR UPDATE "
                                + fixture.stockTable + " SET qty = 1 WHERE sku = 'apple'"))
                        .isInstanceOf(FencingTokenRejectedException.class)
                        .hasMessageContaining("no longer held");
                connection.rollback();
            }
            assertThat(fixture.qty("apple")).isEqualTo(100L);
        }
    }

    @Test
    void aVariableSetFromAFunctionThatWritesIsGuarded() throws SQLException {
        try (FenceFixture fixture = seeded()) {
            String function = "fence_writes_" + fixture.stockTable;
            execute(
                    fixture,
                    "CREATE FUNCTION " + function + "() RETURNS INT MODIFIES SQL DATA BEGIN UPDATE "
                            + fixture.stockTable + " SET qty = 1 WHERE sku = 'apple'; RETURN 1; END");
            try {
                assertThatThrownBy(() -> staleHolderRuns(fixture, "SET @fence_v = " + function + "()"))
                        .isInstanceOf(FencingTokenRejectedException.class);
            } finally {
                execute(fixture, "DROP FUNCTION IF EXISTS " + function);
            }
            assertThat(fixture.qty("apple")).isEqualTo(100L);
        }
    }

    @Test
    void setPasswordEndsTheTransactionLikeEveryImplicitCommit() throws SQLException {
        try (FenceFixture fixture = seeded();
                FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                Connection connection = fenced(fixture).getConnection()) {
            connection.setAutoCommit(false);
            fixture.setQty(connection, "apple", 99);
            try (Statement statement = connection.createStatement()) {
                statement.execute("SET PASSWORD = PASSWORD('fencelock')");
            }
            fixture.newHolderWrites(RESOURCE, 10, "apple", 50);

            assertThatThrownBy(() -> fixture.setQty(connection, "apple", 1))
                    .isInstanceOf(FencingTokenRejectedException.class);
            connection.rollback();
            assertThat(fixture.qty("apple")).isEqualTo(50L);
        }
    }

    /** The holder with token 5, older than the stored 7, runs {@code sql} in a transaction and commits. */
    private static void staleHolderRuns(FenceFixture fixture, String sql) throws SQLException {
        try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 5, null));
                Connection connection = fenced(fixture).getConnection()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.execute(sql);
                connection.commit();
            } finally {
                connection.rollback();
            }
        }
    }

    private static FenceFixture seeded() throws SQLException {
        FenceFixture fixture = new FenceFixture(DATABASE);
        try (Connection connection = fixture.dataSource.getConnection()) {
            fixture.insertStock(connection, "apple", 100);
        }
        fixture.newHolderWrites(RESOURCE, 7, "apple", 100);
        return fixture;
    }

    private static void execute(FenceFixture fixture, String sql) throws SQLException {
        try (Connection connection = fixture.dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static DataSource fenced(FenceFixture fixture) {
        return new FencedDataSource(fixture.dataSource, fixture.guard);
    }
}
