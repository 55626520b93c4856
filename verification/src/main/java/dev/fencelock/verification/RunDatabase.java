package dev.fencelock.verification;

import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.verification.checker.DatabaseSnapshot;
import dev.fencelock.verification.worker.Guard;
import dev.fencelock.verification.worker.RunTables;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The run's tables in PostgreSQL, created when the run starts and dropped when it ends, so that runs never share
 * data and leave nothing behind.
 */
final class RunDatabase implements AutoCloseable {

    /** Overrides the database URL, as for the JDBC tests. */
    static final String URL_ENVIRONMENT_VARIABLE = "FENCELOCK_PG_URL";

    static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/fencelock";

    static final String USER = "fencelock";

    private final PGSimpleDataSource dataSource;
    private final RunTables tables;
    private final Thread dropAtExit;
    private boolean dropped;

    private RunDatabase(PGSimpleDataSource dataSource, RunTables tables) {
        this.dataSource = dataSource;
        this.tables = tables;
        // An orchestrator stopped with SIGTERM runs no finally blocks, only shutdown hooks.
        this.dropAtExit = new Thread(this::dropQuietly, "verification-drop-" + tables.prefix());
        Runtime.getRuntime().addShutdownHook(dropAtExit);
    }

    static String url() {
        String url = System.getenv(URL_ENVIRONMENT_VARIABLE);
        return url != null && !url.isBlank() ? url : DEFAULT_URL;
    }

    /**
     * Creates the counter (one row per key, at 0), history, sequence and fence tables; for {@link
     * Guard#TRIGGERS_ONLY}, protects the counters and the history with the fence table's triggers.
     */
    static RunDatabase create(RunTables tables, List<String> keys, Guard guard) throws SQLException {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(url());
        dataSource.setUser(USER);
        dataSource.setPassword(USER);
        dataSource.setConnectTimeout(5);
        RunDatabase database = new RunDatabase(dataSource, tables);
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(
                    "CREATE TABLE " + tables.counters() + " (key VARCHAR(64) PRIMARY KEY, value BIGINT NOT NULL)");
            // No unique op_id: an operation applied twice must show up as two rows, not be refused.
            statement.execute("CREATE TABLE " + tables.history() + " (id BIGSERIAL PRIMARY KEY,"
                    + " key VARCHAR(64) NOT NULL, token BIGINT NOT NULL, worker VARCHAR(32) NOT NULL,"
                    + " op_id VARCHAR(64) NOT NULL, value_read BIGINT NOT NULL, value_written BIGINT NOT NULL,"
                    + " commit_seq BIGINT NOT NULL)");
            statement.execute("CREATE SEQUENCE " + tables.commitSequence());
            FenceGuard fence = FenceGuard.builder()
                    .table(tables.fence())
                    .protectedTables(guard == Guard.TRIGGERS_ONLY ? tables.written() : List.of())
                    .build();
            fence.createTableIfMissing(connection);
            try (PreparedStatement insert =
                    connection.prepareStatement("INSERT INTO " + tables.counters() + " (key, value) VALUES (?, 0)")) {
                for (String key : keys) {
                    insert.setString(1, key);
                    insert.executeUpdate();
                }
            }
            // After the counters' rows: the triggers would refuse these inserts, which carry no fence.
            fence.protectTables(connection);
        } catch (SQLException | RuntimeException e) {
            database.close();
            throw e;
        }
        return database;
    }

    /** The history rows and counters as they are now, for the checker. */
    DatabaseSnapshot snapshot() throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return DatabaseSnapshot.read(connection, tables.history(), tables.counters());
        }
    }

    /** Drops everything the run created. */
    @Override
    public void close() throws SQLException {
        try {
            Runtime.getRuntime().removeShutdownHook(dropAtExit);
        } catch (IllegalStateException e) {
            // The JVM is exiting; the hook runs anyway and finds the tables gone.
        }
        drop();
    }

    private void dropQuietly() {
        try {
            drop();
        } catch (SQLException e) {
            // Nothing more to do while the JVM exits.
        }
    }

    private synchronized void drop() throws SQLException {
        if (dropped) {
            return;
        }
        dropped = true;
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + tables.history());
            statement.execute("DROP TABLE IF EXISTS " + tables.counters());
            statement.execute("DROP TABLE IF EXISTS " + tables.fence());
            statement.execute("DROP SEQUENCE IF EXISTS " + tables.commitSequence());
            statement.execute("DROP FUNCTION IF EXISTS " + tables.fenceCheckFunction() + "()");
        }
    }
}
