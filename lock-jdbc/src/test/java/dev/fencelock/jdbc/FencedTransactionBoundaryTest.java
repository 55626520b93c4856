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
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The guard's "checked" state must end wherever the transaction ends, also when the end is SQL
 * rather than a JDBC call. Each case: holder A (token 9) writes, which runs the guard; a SQL
 * statement ends A's transaction; holder B (token 10) then writes and commits; A's next write must
 * run the guard again and be refused. Were A's old check still trusted, its write would land after
 * B's in a transaction that never presented a fence.
 */
class FencedTransactionBoundaryTest {

    private static final String RESOURCE = "stock:apple";

    @AfterEach
    void noFenceLeaks() {
        assertThat(FencingContext.all()).isEmpty();
    }

    static Stream<Arguments> statementsThatEndTheTransaction() {
        List<Arguments> cases = new ArrayList<>();
        for (TestDatabase database : TestDatabase.values()) {
            cases.add(Arguments.of(database, "COMMIT"));
            cases.add(Arguments.of(database, "ROLLBACK"));
            cases.add(Arguments.of(database, "/* a comment first */ commit"));
        }
        cases.add(Arguments.of(TestDatabase.POSTGRESQL, "END"));
        cases.add(Arguments.of(TestDatabase.POSTGRESQL, "ABORT"));
        cases.add(Arguments.of(TestDatabase.POSTGRESQL, "COMMIT AND CHAIN"));
        // MariaDB commits implicitly before these; H2 commits before DDL.
        cases.add(Arguments.of(TestDatabase.MARIADB, "BEGIN"));
        cases.add(Arguments.of(TestDatabase.MARIADB, "START TRANSACTION"));
        cases.add(Arguments.of(TestDatabase.MARIADB, "CREATE TABLE IF NOT EXISTS fence_boundary_ddl (id INT)"));
        cases.add(Arguments.of(TestDatabase.MARIADB, "TRUNCATE TABLE fence_boundary_scratch"));
        cases.add(Arguments.of(TestDatabase.MARIADB, "LOCK TABLES fence_boundary_scratch READ"));
        cases.add(Arguments.of(TestDatabase.H2, "CREATE TABLE IF NOT EXISTS fence_boundary_ddl (id INT)"));
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("statementsThatEndTheTransaction")
    void aTransactionEndedBySqlIsGuardedAgain(TestDatabase database, String sql) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database);
                Connection setup = database.dataSource().getConnection();
                Statement scratch = setup.createStatement()) {
            scratch.execute("CREATE TABLE IF NOT EXISTS fence_boundary_scratch (id INT)");
            seed(fixture);
            DataSource fenced = new FencedDataSource(fixture.dataSource, fixture.guard);
            try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                    Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                fixture.setQty(connection, "apple", 99);
                try (Statement statement = connection.createStatement()) {
                    statement.execute(sql);
                }
                unlockTables(database, connection, sql);

                fixture.newHolderWrites(RESOURCE, 10, "apple", 50);

                assertThatThrownBy(() -> fixture.setQty(connection, "apple", 1))
                        .isInstanceOf(FencingTokenRejectedException.class);
                connection.rollback();
            } finally {
                scratch.execute("DROP TABLE IF EXISTS fence_boundary_ddl");
                scratch.execute("DROP TABLE IF EXISTS fence_boundary_scratch");
            }
            assertThat(fixture.qty("apple")).isEqualTo(50L);
            assertThat(fixture.storedToken(RESOURCE)).isEqualTo(10L);
        }
    }

    @ParameterizedTest
    @MethodSource("multiStatementDatabases")
    void aTextThatEndsTheTransactionMidwayIsRefusedBeforeItRuns(TestDatabase database, DataSource dataSource)
            throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            seed(fixture);
            DataSource fenced = new FencedDataSource(dataSource, fixture.guard);
            String table = fixture.stockTable;
            try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                    Connection connection = fenced.getConnection();
                    Statement statement = connection.createStatement()) {
                connection.setAutoCommit(false);
                // The second UPDATE would run after the COMMIT, in a transaction the guard never saw.
                assertThatThrownBy(() -> statement.execute("UPDATE " + table + " SET qty = 1 WHERE sku = 'apple';"
                                + " COMMIT; UPDATE " + table + " SET qty = 2 WHERE sku = 'apple'"))
                        .isInstanceOf(LockException.class)
                        .hasMessageContaining("end the transaction");
                connection.rollback();
            }
            assertThat(fixture.qty("apple")).isEqualTo(100L);
        }
    }

    @ParameterizedTest
    @MethodSource("multiStatementDatabases")
    void aBatchThatEndsTheTransactionMidwayIsRefusedBeforeItRuns(TestDatabase database, DataSource dataSource)
            throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            seed(fixture);
            DataSource fenced = new FencedDataSource(dataSource, fixture.guard);
            String table = fixture.stockTable;
            try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                    Connection connection = fenced.getConnection();
                    Statement statement = connection.createStatement()) {
                connection.setAutoCommit(false);
                statement.addBatch("UPDATE " + table + " SET qty = 1 WHERE sku = 'apple'");
                statement.addBatch("COMMIT");
                statement.addBatch("UPDATE " + table + " SET qty = 2 WHERE sku = 'apple'");
                assertThatThrownBy(statement::executeBatch)
                        .isInstanceOf(LockException.class)
                        .hasMessageContaining("end the transaction");
                connection.rollback();
            }
            assertThat(fixture.qty("apple")).isEqualTo(100L);
        }
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void aProcedureThatCommitsIsFollowedByTheGuardAgain(boolean callable) throws SQLException {
        TestDatabase database = TestDatabase.MARIADB;
        try (FenceFixture fixture = new FenceFixture(database);
                Connection setup = database.dataSource().getConnection();
                Statement ddl = setup.createStatement()) {
            seed(fixture);
            ddl.execute("CREATE OR REPLACE PROCEDURE fence_boundary_commit() BEGIN COMMIT; END");
            // Procedure calls run under a fence only where the guard allows them (FencedProcedureCallTest).
            FenceGuard allowing = FenceGuard.builder()
                    .table(fixture.fenceTable)
                    .allowProcedureCalls(true)
                    .build();
            DataSource fenced = new FencedDataSource(fixture.dataSource, allowing);
            try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                    Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                fixture.setQty(connection, "apple", 99);
                if (callable) {
                    try (java.sql.CallableStatement call = connection.prepareCall("{call fence_boundary_commit()}")) {
                        call.execute();
                    }
                } else {
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("CALL fence_boundary_commit()");
                    }
                }
                fixture.newHolderWrites(RESOURCE, 10, "apple", 50);

                assertThatThrownBy(() -> fixture.setQty(connection, "apple", 1))
                        .isInstanceOf(FencingTokenRejectedException.class);
                connection.rollback();
            } finally {
                ddl.execute("DROP PROCEDURE IF EXISTS fence_boundary_commit");
            }
            assertThat(fixture.qty("apple")).isEqualTo(50L);
        }
    }

    static Stream<Arguments> multiStatementDatabases() throws SQLException {
        return Stream.of(
                Arguments.of(TestDatabase.POSTGRESQL, TestDatabase.POSTGRESQL.dataSource()),
                Arguments.of(TestDatabase.MARIADB, TestDatabase.MARIADB.multiQueryDataSource()));
    }

    private static void seed(FenceFixture fixture) throws SQLException {
        try (Connection connection = fixture.dataSource.getConnection()) {
            fixture.insertStock(connection, "apple", 100);
        }
    }

    private static void unlockTables(TestDatabase database, Connection connection, String sql) throws SQLException {
        if (database == TestDatabase.MARIADB && sql.startsWith("LOCK")) {
            try (Statement statement = connection.createStatement()) {
                statement.execute("UNLOCK TABLES");
            }
        }
    }
}
