package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.jdbc.ProtectedTablesTest.ProtectedStock;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The ways around a client-side guard — a COMMIT inside the text, a statement behind MariaDB's
 * {@code SET STATEMENT … FOR}, a retry after the server rolled the transaction back, a procedure that
 * commits and writes on, another schema's fence table — each run by a client that puts its fence in
 * the session but checks nothing itself. Without the triggers the stale write commits; with them the
 * database refuses it. The stored token is 7 (or becomes 10 during the case); the client's is older.
 */
class ProtectedTablesBypassTest {

    private static final String RESOURCE = "stock:apple";

    static List<Arguments> databasesWithAndWithoutTriggers() {
        return List.of(
                Arguments.of(TestDatabase.POSTGRESQL, false),
                Arguments.of(TestDatabase.POSTGRESQL, true),
                Arguments.of(TestDatabase.MARIADB, false),
                Arguments.of(TestDatabase.MARIADB, true),
                Arguments.of(TestDatabase.H2, false),
                Arguments.of(TestDatabase.H2, true));
    }

    @ParameterizedTest(name = "{0}, triggers {1}")
    @MethodSource("databasesWithAndWithoutTriggers")
    void aWriteAfterACommitInsideTheText(TestDatabase database, boolean triggers) throws Exception {
        try (ProtectedStock stock = stock(database, triggers);
                Connection connection = unchecked(database, stock, 5)) {
            String table = stock.fixture.stockTable;
            DataSourceText.run(
                    database,
                    connection,
                    "SELECT 1; COMMIT; UPDATE " + table + " SET qty = 1 WHERE sku = 'apple'",
                    triggers);
            expect(stock, triggers);
        }
    }

    @ParameterizedTest(name = "triggers {0}")
    @ValueSource(booleans = {false, true})
    void aStatementBehindSetStatementFor(boolean triggers) throws Exception {
        TestDatabase database = TestDatabase.MARIADB;
        try (ProtectedStock stock = stock(database, triggers);
                Connection connection = unchecked(database, stock, 5)) {
            String sql = "SET STATEMENT max_statement_time=5 FOR UPDATE " + stock.fixture.stockTable
                    + " SET qty = 1 WHERE sku = 'apple'";
            DataSourceText.run(database, connection, sql, triggers);
            expect(stock, triggers);
        }
    }

    @ParameterizedTest(name = "triggers {0}")
    @ValueSource(booleans = {false, true})
    void aWriteOfAProcedureAfterItsOwnCommit(boolean triggers) throws Exception {
        TestDatabase database = TestDatabase.MARIADB;
        try (ProtectedStock stock = stock(database, triggers)) {
            String table = stock.fixture.stockTable;
            String procedure = "commits_" + table;
            String gate = "gate_" + table;
            execute(stock, "CREATE TABLE " + gate + " (id INT PRIMARY KEY)");
            execute(stock, "INSERT INTO " + gate + " VALUES (1)");
            execute(
                    stock,
                    "CREATE PROCEDURE " + procedure + "() BEGIN UPDATE " + table
                            + " SET qty = 99 WHERE sku = 'apple'; COMMIT; SELECT id INTO @g FROM " + gate
                            + " WHERE id = 1 FOR UPDATE; UPDATE " + table + " SET qty = 1 WHERE sku = 'apple'; END");
            try (Connection gateKeeper = stock.fixture.dataSource.getConnection()) {
                gateKeeper.setAutoCommit(false);
                try (Statement closeGate = gateKeeper.createStatement()) {
                    closeGate
                            .executeQuery("SELECT id FROM " + gate + " WHERE id = 1 FOR UPDATE")
                            .close();
                }
                // The holder is current (9) when its procedure starts; a newer one writes at the gate.
                CompletableFuture<Void> call = CompletableFuture.runAsync(() -> {
                    try (Connection connection = unchecked(database, stock, 9)) {
                        DataSourceText.run(database, connection, "CALL " + procedure + "()", triggers);
                    } catch (Exception ex) {
                        throw new IllegalStateException(ex);
                    }
                });
                Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> stock.fixture.qty("apple") == 99);
                stock.newHolderWrites(10, "pear", 6);
                gateKeeper.rollback();
                call.get(20, TimeUnit.SECONDS);
            } finally {
                execute(stock, "DROP PROCEDURE IF EXISTS " + procedure);
                execute(stock, "DROP TABLE IF EXISTS " + gate);
            }
            assertThat(stock.fixture.qty("apple")).isEqualTo(triggers ? 99L : 1L);
        }
    }

    @ParameterizedTest(name = "triggers {0}")
    @ValueSource(booleans = {false, true})
    void aRetryOnTheSameConnectionAfterTheServerRolledBackADeadlockVictim(boolean triggers) throws Exception {
        TestDatabase database = TestDatabase.MARIADB;
        try (ProtectedStock stock = stock(database, triggers);
                Connection rival = stock.fixture.dataSource.getConnection();
                Connection connection = unchecked(database, stock, 9)) {
            rival.setAutoCommit(false);
            ProtectedTablesTest.bypass(database, rival); // the rival is no holder: it writes past the fence
            for (int i = 0; i < 20; i++) {
                stock.fixture.insertStock(rival, "heavy" + i, i); // the rival is heavier: InnoDB spares it
            }
            stock.fixture.setQty(rival, "pear", 6);
            stock.setQty(connection, 99);
            CompletableFuture<Void> waits = CompletableFuture.runAsync(() -> {
                try {
                    stock.setQty(rival, 7);
                } catch (SQLException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> lockWaits(stock) > 0);
            assertThatThrownBy(() -> stock.fixture.setQty(connection, "pear", 8))
                    .isInstanceOf(SQLException.class);
            waits.get(10, TimeUnit.SECONDS);
            rival.rollback();
            stock.newHolderWrites(10, "pear", 5);
            DataSourceText.run(
                    database,
                    connection,
                    "UPDATE " + stock.fixture.stockTable + " SET qty = 1 WHERE sku = 'apple'",
                    triggers);
            assertThat(stock.fixture.qty("apple")).isEqualTo(triggers ? 100L : 1L);
        }
    }

    @ParameterizedTest(name = "{0}, triggers {1}")
    @MethodSource("databasesWithAndWithoutTriggers")
    void aWriteToATableWhoseFenceTableIsAnotherSchemas(TestDatabase database, boolean triggers) throws Exception {
        // Two applications' tables, each protected by its own fence table; the newer holder wrote
        // through the second one. A holder that checked only the first must not write the second.
        try (ProtectedStock first = stock(database, true);
                ProtectedStock second = stock(database, triggers)) {
            second.newHolderWrites(10, "pear", 6);
            try (Connection connection = unchecked(database, first, 9)) {
                second.setQty(connection, 1);
                connection.commit();
            } catch (SQLException refused) {
                assertThat(triggers)
                        .as("refused although unprotected: %s", refused)
                        .isTrue();
            }
            assertThat(second.fixture.qty("apple")).isEqualTo(triggers ? 100L : 1L);
        }
    }

    /** The fixture's stock, protected or not; a holder with token 7 has written through it. */
    private static ProtectedStock stock(TestDatabase database, boolean triggers) throws SQLException {
        ProtectedStock stock = new ProtectedStock(database);
        stock.newHolderWrites(7, "pear", 5);
        if (!triggers) {
            try (Connection connection = stock.fixture.dataSource.getConnection();
                    Statement statement = connection.createStatement()) {
                for (String sql : FenceProtection.removalDdl(database.dialect(), stock.fixture.stockTable)) {
                    statement.execute(sql);
                }
            }
        }
        return stock;
    }

    /**
     * A connection in a transaction whose session carries the fence {@code token} of {@code stock}'s
     * fence table, as a fenced data source puts it there, with no client-side check at all.
     */
    static Connection unchecked(TestDatabase database, ProtectedStock stock, long token) throws SQLException {
        Connection connection = (database == TestDatabase.MARIADB)
                ? database.multiQueryDataSource().getConnection()
                : database.dataSource().getConnection();
        connection.setAutoCommit(false);
        FenceProtection.setSessionFence(
                connection, database.dialect(), SessionFence.of(List.of(new SessionFence.Row(RESOURCE, token)), false));
        return connection;
    }

    private static void expect(ProtectedStock stock, boolean triggers) throws SQLException {
        assertThat(stock.fixture.qty("apple")).isEqualTo(triggers ? 100L : 1L);
    }

    private static void execute(ProtectedStock stock, String sql) throws SQLException {
        try (Connection connection = stock.fixture.dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static long lockWaits(ProtectedStock stock) throws SQLException {
        try (Connection connection = stock.fixture.dataSource.getConnection();
                Statement statement = connection.createStatement();
                java.sql.ResultSet rows = statement.executeQuery(
                        "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND = 'Query' AND INFO LIKE"
                                + " 'UPDATE " + stock.fixture.stockTable + "%'")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** Runs SQL text and commits; with triggers, the database must refuse it with a protected table's error. */
    static final class DataSourceText {

        static void run(TestDatabase database, Connection connection, String sql, boolean triggers)
                throws SQLException {
            try (Statement statement = connection.createStatement()) {
                statement.execute(sql);
                while (statement.getMoreResults() || statement.getUpdateCount() != -1) {
                    // every statement of the text runs
                }
                connection.commit();
                assertThat(triggers).as("%s ran unrefused on %s", sql, database).isFalse();
            } catch (SQLException ex) {
                assertThat(triggers)
                        .as("%s failed without triggers: %s", sql, ex)
                        .isTrue();
                assertThat((Object) FenceProtection.refusal(ex))
                        .as("refused by a protected table: %s", ex)
                        .isNotNull();
                connection.rollback();
            }
        }
    }
}
