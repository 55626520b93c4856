package dev.fencelock.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Runs FenceLock's own schema changes (the fence table, the protected tables' triggers) one at a
 * time across every instance that shares the database.
 *
 * <p>Replicas of one application start together, and each creates the fence table and protects its
 * tables at start-up. Run at the same moment, the same {@code CREATE OR REPLACE} of one trigger or
 * function fails on PostgreSQL ("tuple concurrently updated") and H2 ("trigger already exists"), so
 * an instance would not start. Each change therefore first takes a lock that only these changes
 * take:
 *
 * <ul>
 *   <li>PostgreSQL: a transaction-scoped advisory lock; the changes run in that transaction, so the
 *       lock and the changes end together, and a crashed instance leaves nothing behind. The wait is
 *       bounded by the session's {@code lock_timeout};
 *   <li>MariaDB: a named lock ({@code GET_LOCK}), waited for at most {@value #WAIT_SECONDS} s and
 *       released when the changes end or the connection closes (MariaDB commits each DDL statement
 *       on its own);
 *   <li>H2: a lock in this JVM, the only one that reaches an in-memory or embedded database.
 * </ul>
 */
final class SchemaChanges {

    /** The advisory lock's key on PostgreSQL: "fencelok" in ASCII, unlikely to be an application's. */
    static final long POSTGRESQL_KEY = 0x66656e63656c6f6bL;

    /** The named lock on MariaDB. */
    static final String MARIADB_NAME = "fencelock.schema";

    static final int WAIT_SECONDS = 60;

    private static final Object H2_LOCK = new Object();

    private SchemaChanges() {}

    /** Schema changes on one connection. */
    @FunctionalInterface
    interface Change {
        void run() throws SQLException;
    }

    /** Runs {@code change} on {@code connection} while no other instance runs one on its database. */
    static void serialized(Connection connection, FenceDialect dialect, Change change) throws SQLException {
        switch (dialect) {
            case POSTGRESQL -> postgresql(connection, change);
            case MARIADB -> mariadb(connection, change);
            case H2 -> {
                synchronized (H2_LOCK) {
                    change.run();
                }
            }
        }
    }

    static String postgresqlLockSql() {
        return "SELECT pg_advisory_xact_lock(" + POSTGRESQL_KEY + ")";
    }

    private static void postgresql(Connection connection, Change change) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        if (autoCommit) {
            connection.setAutoCommit(false);
        }
        try {
            try (Statement statement = connection.createStatement()) {
                statement.execute(postgresqlLockSql());
            }
            change.run();
            if (autoCommit) {
                connection.commit();
            }
        } catch (SQLException | RuntimeException ex) {
            if (autoCommit) {
                rollbackQuietly(connection, ex);
            }
            throw ex;
        } finally {
            if (autoCommit) {
                connection.setAutoCommit(true);
            }
        }
    }

    private static void mariadb(Connection connection, Change change) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            try (ResultSet granted =
                    statement.executeQuery("SELECT GET_LOCK('" + MARIADB_NAME + "', " + WAIT_SECONDS + ")")) {
                if (!granted.next() || granted.getInt(1) != 1) {
                    throw new SQLException("Another instance has been changing FenceLock's schema objects for "
                            + WAIT_SECONDS + " s (named lock '" + MARIADB_NAME + "' is still taken): is a migration"
                            + " stuck?");
                }
            }
            try {
                change.run();
            } finally {
                statement
                        .executeQuery("SELECT RELEASE_LOCK('" + MARIADB_NAME + "')")
                        .close();
            }
        }
    }

    private static void rollbackQuietly(Connection connection, Exception cause) {
        try {
            connection.rollback();
        } catch (SQLException ex) {
            cause.addSuppressed(ex);
        }
    }
}
