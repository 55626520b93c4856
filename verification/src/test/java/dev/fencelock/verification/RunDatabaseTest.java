package dev.fencelock.verification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.jdbc.FenceDialect;
import dev.fencelock.jdbc.FenceProtection;
import dev.fencelock.verification.worker.Guard;
import dev.fencelock.verification.worker.RunTables;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A triggers-only run's tables refuse unfenced writes from the start, and the run leaves nothing behind. */
class RunDatabaseTest {

    @Test
    void aTriggersOnlyRunProtectsTheTablesItsWorkersWriteAndDropsEverythingAtTheEnd() throws Exception {
        RunTables tables = new RunTables(String.format(Locale.ROOT, "vr_test_%08x", new Random().nextInt()));

        try (Connection connection = connect()) {
            try (RunDatabase database = RunDatabase.create(tables, List.of("k0", "k1"), Guard.TRIGGERS_ONLY)) {
                for (String table : tables.written()) {
                    assertThat(FenceProtection.isProtected(connection, FenceDialect.POSTGRESQL, table))
                            .as(table)
                            .isTrue();
                }
                // The counters' first rows went in before the triggers did.
                assertThat(count(connection, "SELECT COUNT(*) FROM " + tables.counters()))
                        .isEqualTo(2);
                assertThatThrownBy(() -> update(connection, "UPDATE " + tables.counters() + " SET value = 1"))
                        .isInstanceOf(SQLException.class)
                        .extracting(e -> ((SQLException) e).getSQLState())
                        .isEqualTo(FenceProtection.NO_FENCE);
            }

            assertThat(count(connection, "SELECT COUNT(*) FROM pg_class WHERE relname LIKE '" + tables.prefix() + "%'"))
                    .isZero();
            assertThat(count(
                            connection,
                            "SELECT COUNT(*) FROM pg_proc WHERE proname = '" + tables.fenceCheckFunction() + "'"))
                    .isZero();
        }
    }

    @Test
    void theOtherRunsTablesCarryNoTriggers() throws Exception {
        RunTables tables = new RunTables(String.format(Locale.ROOT, "vr_test_%08x", new Random().nextInt()));

        try (Connection connection = connect();
                RunDatabase database = RunDatabase.create(tables, List.of("k0"), Guard.CLIENT)) {
            for (String table : tables.written()) {
                assertThat(FenceProtection.isProtected(connection, FenceDialect.POSTGRESQL, table))
                        .as(table)
                        .isFalse();
            }
        }
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(RunDatabase.url(), RunDatabase.USER, RunDatabase.USER);
    }

    private static void update(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.executeUpdate(sql);
        }
    }

    private static long count(Connection connection, String sql) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql);
                ResultSet rows = statement.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
