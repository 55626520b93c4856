package dev.fencelock.jdbc;

import dev.fencelock.LockException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * How one database family stores a fence: the DDL of the fence table and the conditional upsert
 * that advances a resource's highest accepted token.
 *
 * <p>Every dialect's upsert inserts the row when the resource has none and otherwise replaces the
 * token only when the stored token is lower or equal (equal: one holder writes many times). It
 * takes the row's write lock, which it keeps until the transaction ends, so a competing writer of
 * the same resource waits for the commit and then compares against what was committed. Why each
 * statement is race-free is explained on the constant.
 *
 * <p>Column lengths count characters (code points), except on H2, which counts UTF-16 units.
 *
 * <p>The fence table, for any dialect:
 *
 * <pre>
 * resource   VARCHAR(n) PRIMARY KEY  -- the lock's resource name, case- and accent-sensitive
 * token      BIGINT NOT NULL         -- the highest fencing token accepted so far
 * updated_at TIMESTAMP NOT NULL      -- when that token was (last) presented, for operators
 * </pre>
 */
public enum FenceDialect {

    /**
     * PostgreSQL: one {@code INSERT … ON CONFLICT (resource) DO UPDATE … WHERE stored <= new}.
     * {@code ON CONFLICT DO UPDATE} locks the conflicting row even when its {@code WHERE} is false,
     * and a waiter re-evaluates the {@code WHERE} against the committed row version (READ
     * COMMITTED) or fails with a serialization error (REPEATABLE READ and above), so the update
     * count is the verdict: 1 accepted, 0 refused.
     */
    POSTGRESQL("PostgreSQL") {
        @Override
        public String createTableSql(FenceTable table) {
            return "CREATE TABLE IF NOT EXISTS " + table + " (resource VARCHAR(" + table.resourceLength()
                    + ") NOT NULL PRIMARY KEY, token BIGINT NOT NULL, updated_at TIMESTAMP NOT NULL)";
        }

        @Override
        public String upsertSql(FenceTable table) {
            return "INSERT INTO " + table + " AS f (resource, token, updated_at) VALUES (?, ?, LOCALTIMESTAMP)"
                    + " ON CONFLICT (resource) DO UPDATE SET token = EXCLUDED.token, updated_at = EXCLUDED.updated_at"
                    + " WHERE f.token <= EXCLUDED.token";
        }

        @Override
        boolean isMissingTable(SQLException ex) {
            return "42P01".equals(ex.getSQLState());
        }

        @Override
        SqlText.Family family() {
            return SqlText.Family.POSTGRESQL;
        }

        @Override
        String openWritingTransactionSql() {
            return "SELECT txid_current_if_assigned() IS NOT NULL";
        }

        @Override
        String tableIdentitySql(FenceTable table) {
            // The table as the session's search_path resolves it.
            return "SELECT to_regclass('" + table + "')::oid::text";
        }

        @Override
        Verdict present(
                Connection connection,
                FenceTable table,
                String resource,
                long token,
                boolean readOnly,
                SessionSettings session)
                throws SQLException {
            // A failed upsert would abort the whole transaction here, so ask before trying.
            if (readOnly && "on".equals(readString(connection, "SELECT current_setting('transaction_read_only')"))) {
                return read(connection, table, resource, token);
            }
            return advance(connection, table, resource, token, session);
        }

        @Override
        int upsert(Connection connection, FenceTable table, String resource, long token, SessionSettings session)
                throws SQLException {
            if (session.isEmpty()) {
                return super.upsert(connection, table, resource, token, session);
            }
            // The session's settings ride along in the same statement: no round trip of their own.
            String settings = (session.fence() != null ? "set_config('fencelock.fence', ?, true)" : "1")
                    + ", "
                    + (session.idleMillis() > 0 ? "set_config('idle_in_transaction_session_timeout', ?, true)" : "2");
            String sql = "WITH session_settings AS (SELECT " + settings + ")"
                    + " INSERT INTO " + table + " AS f (resource, token, updated_at)"
                    + " SELECT ?, ?, LOCALTIMESTAMP FROM session_settings"
                    + " ON CONFLICT (resource) DO UPDATE SET token = EXCLUDED.token, updated_at = EXCLUDED.updated_at"
                    + " WHERE f.token <= EXCLUDED.token";
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                int parameter = 1;
                if (session.fence() != null) {
                    statement.setString(parameter++, session.fence());
                }
                if (session.idleMillis() > 0) {
                    statement.setString(parameter++, Long.toString(session.idleMillis()));
                }
                statement.setString(parameter++, resource);
                statement.setLong(parameter, token);
                return statement.executeUpdate();
            }
        }
    },

    /**
     * MariaDB and MySQL: {@code INSERT … ON DUPLICATE KEY UPDATE} keeping the larger token, then
     * {@code SELECT token … FOR UPDATE} on the same row.
     *
     * <p>The update count cannot be the verdict here: the server reports 0 affected rows when an
     * accepted equal token changes nothing, and drivers differ in whether they report found rows
     * (MySQL Connector/J's default, where a refused row also counts 1) or affected rows (MariaDB
     * Connector/J 3). The read that follows is still race-free: the upsert already holds the row's
     * exclusive lock until commit, so nobody can change the row in between, and a locking read
     * sees the latest committed version rather than the transaction's REPEATABLE READ snapshot
     * (which may predate a newer holder's commit). Accepted means the stored token is now ours.
     *
     * <p>The resource column uses {@code utf8mb4_bin}, because the server's usual case-insensitive
     * collation would make {@code Order:1} and {@code order:1} share one fence.
     */
    MARIADB("MariaDB/MySQL") {
        @Override
        public String createTableSql(FenceTable table) {
            // DATETIME, not TIMESTAMP: no implicit ON UPDATE/DEFAULT rules and no year-2038 limit.
            return "CREATE TABLE IF NOT EXISTS " + table + " (resource VARCHAR(" + table.resourceLength()
                    + ") CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,"
                    + " token BIGINT NOT NULL, updated_at DATETIME(6) NOT NULL) ENGINE=InnoDB";
        }

        @Override
        public String upsertSql(FenceTable table) {
            // Assignments run left to right, so updated_at must compare against the old token.
            return "INSERT INTO " + table + " (resource, token, updated_at) VALUES (?, ?, CURRENT_TIMESTAMP(6))"
                    + " ON DUPLICATE KEY UPDATE"
                    + " updated_at = IF(token <= VALUES(token), VALUES(updated_at), updated_at),"
                    + " token = IF(token <= VALUES(token), VALUES(token), token)";
        }

        @Override
        Verdict advance(Connection connection, FenceTable table, String resource, long token, SessionSettings session)
                throws SQLException {
            upsert(connection, table, resource, token, SessionSettings.NONE);
            if (session.idleMillis() > 0) {
                try (PreparedStatement statement =
                        connection.prepareStatement("SET SESSION idle_write_transaction_timeout = ?")) {
                    statement.setLong(1, Math.max(1, (session.idleMillis() + 999) / 1000));
                    statement.execute();
                }
            }
            Long stored;
            if (session.fence() == null) {
                stored = readToken(connection, lockedTokenSql(table), resource);
            } else {
                // The protected tables' fence is set by the same read: no round trip of its own.
                try (PreparedStatement statement = connection.prepareStatement(
                        "SELECT token, @fencelock_fence := ?" + " FROM " + table + " WHERE resource = ? FOR UPDATE")) {
                    statement.setString(1, session.fence());
                    statement.setString(2, resource);
                    try (ResultSet rows = statement.executeQuery()) {
                        stored = rows.next() ? rows.getLong(1) : null;
                    }
                }
                if (stored == null) {
                    FenceProtection.setSessionFence(connection, this, session.fence());
                }
            }
            return (stored != null && stored == token) ? Verdict.ACCEPTED : new Verdict(false, stored);
        }

        @Override
        boolean upsertCountIsVerdict() {
            return false;
        }

        @Override
        boolean isMissingTable(SQLException ex) {
            return ex.getErrorCode() == 1146 || "42S02".equals(ex.getSQLState());
        }

        @Override
        SqlText.Family family() {
            return SqlText.Family.MARIADB;
        }

        @Override
        String openWritingTransactionSql() {
            // A SELECT of no table starts no transaction, so this asks without changing the answer.
            return "SELECT @@in_transaction = 1";
        }

        @Override
        String tableIdentitySql(FenceTable table) {
            return table.schema() != null
                    ? "SELECT '" + table + "'"
                    : "SELECT CONCAT(DATABASE(), '.', '" + table + "')";
        }
    },

    /**
     * H2 2.x: one standard {@code MERGE … USING … WHEN MATCHED AND stored <= new THEN UPDATE WHEN
     * NOT MATCHED THEN INSERT}. H2 locks the matched row for the update and, when it had to wait for
     * another transaction, re-reads the committed row and re-checks the condition. Two first inserts
     * of one resource are not merged by H2: the second waits for the first to commit and then fails
     * with a duplicate key. H2 undoes only that statement, so the guard runs the MERGE once more,
     * now against the committed row. The update count is the verdict.
     */
    H2("H2") {
        @Override
        public String createTableSql(FenceTable table) {
            return "CREATE TABLE IF NOT EXISTS " + table + " (resource VARCHAR(" + table.resourceLength()
                    + ") NOT NULL PRIMARY KEY, token BIGINT NOT NULL, updated_at TIMESTAMP NOT NULL)";
        }

        @Override
        public String upsertSql(FenceTable table) {
            // No length in the cast: H2 truncates a cast silently, which would merge two resources.
            return "MERGE INTO " + table + " AS f USING (VALUES (CAST(? AS VARCHAR), CAST(? AS BIGINT)))"
                    + " AS s(resource, token) ON f.resource = s.resource"
                    + " WHEN MATCHED AND f.token <= s.token THEN UPDATE SET token = s.token, updated_at = LOCALTIMESTAMP"
                    + " WHEN NOT MATCHED THEN INSERT (resource, token, updated_at)"
                    + " VALUES (s.resource, s.token, LOCALTIMESTAMP)";
        }

        @Override
        Verdict advance(Connection connection, FenceTable table, String resource, long token, SessionSettings session)
                throws SQLException {
            if (session.fence() != null) {
                FenceProtection.setSessionFence(connection, this, session.fence()); // in-process: nothing to save
            }
            try {
                return super.advance(connection, table, resource, token, SessionSettings.NONE);
            } catch (SQLException ex) {
                if (!"23505".equals(ex.getSQLState())) {
                    throw ex;
                }
                return super.advance(connection, table, resource, token, SessionSettings.NONE);
            }
        }

        @Override
        int length(String resource) {
            // H2 measures VARCHAR in UTF-16 units: a character outside the BMP counts twice.
            return resource.length();
        }

        @Override
        boolean isMissingTable(SQLException ex) {
            return "42S02".equals(ex.getSQLState()) || "42S04".equals(ex.getSQLState());
        }

        @Override
        SqlText.Family family() {
            return SqlText.Family.H2;
        }

        @Override
        String openWritingTransactionSql() {
            return "SELECT CONTAINS_UNCOMMITTED FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID = SESSION_ID()";
        }

        @Override
        String tableIdentitySql(FenceTable table) {
            return table.schema() != null
                    ? "SELECT '" + table + "'"
                    : "SELECT CURRENT_SCHEMA || '.' || '" + table + "'";
        }
    };

    private final String displayName;

    FenceDialect(String displayName) {
        this.displayName = displayName;
    }

    /**
     * Picks the dialect from {@link java.sql.DatabaseMetaData#getDatabaseProductName()}.
     *
     * @throws LockException for databases FenceLock has no fence statement for
     */
    public static FenceDialect detect(Connection connection) throws SQLException {
        return fromProductName(connection.getMetaData().getDatabaseProductName());
    }

    /**
     * Picks the dialect for a JDBC product name ({@code PostgreSQL}, {@code MariaDB}, {@code MySQL},
     * {@code H2}).
     *
     * @throws LockException for databases FenceLock has no fence statement for
     */
    public static FenceDialect fromProductName(@Nullable String productName) {
        String name = (productName != null) ? productName.toLowerCase(Locale.ROOT) : "";
        if (name.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (name.contains("mariadb") || name.contains("mysql")) {
            return MARIADB;
        }
        if (name.equals("h2")) {
            return H2;
        }
        throw new LockException("No fencing dialect for database '" + productName
                + "': FenceLock supports PostgreSQL, MariaDB/MySQL and H2; if this database speaks one of their"
                + " dialects, set it explicitly (FenceGuard.builder().dialect(...))");
    }

    /** The {@code CREATE TABLE IF NOT EXISTS} statement for {@code table} with the default column length. */
    public String createTableSql(String table) {
        return createTableSql(FenceTable.named(table));
    }

    /** The {@code CREATE TABLE IF NOT EXISTS} statement for {@code table}, for migrations or {@code initialize-schema}. */
    public abstract String createTableSql(FenceTable table);

    /** The conditional upsert; parameter 1 is the resource, parameter 2 the token. */
    public abstract String upsertSql(FenceTable table);

    /**
     * Whether the upsert's update count is its verdict (above 0: accepted). Where it is not
     * (MariaDB/MySQL), the token that {@link #lockedTokenSql} reads after the upsert is: accepted
     * when it equals the presented one.
     */
    boolean upsertCountIsVerdict() {
        return true;
    }

    /**
     * A locking read of a fence row's stored token; parameter 1 is the row key. Run after the upsert
     * in the same transaction, which already holds the row's lock, it reads the committed latest
     * token, not an older snapshot.
     */
    String lockedTokenSql(FenceTable table) {
        return "SELECT token FROM " + table + " WHERE resource = ? FOR UPDATE";
    }

    /**
     * Runs the conditional upsert on {@code connection} (in its current transaction) and says whether
     * the token was accepted.
     */
    Verdict advance(Connection connection, FenceTable table, String resource, long token, SessionSettings session)
            throws SQLException {
        if (upsert(connection, table, resource, token, session) > 0) {
            return Verdict.ACCEPTED;
        }
        // Only for the message: the refused upsert already told us a newer token is stored.
        return new Verdict(
                false, readToken(connection, "SELECT token FROM " + table + " WHERE resource = ?", resource));
    }

    /**
     * Presents the token in the connection's current transaction. A transaction the database keeps
     * read-only cannot write the fence row; there a plain read of the stored token decides, which is
     * enough because such a transaction writes nothing the fence must stop. Where the database does
     * not enforce read-only, the upsert runs as for any transaction, so "read-only" never becomes a
     * way around the guard.
     *
     * @param readOnly whether the connection was set read-only, the hint that the database may refuse the upsert
     */
    Verdict present(
            Connection connection,
            FenceTable table,
            String resource,
            long token,
            boolean readOnly,
            SessionSettings session)
            throws SQLException {
        try {
            return advance(connection, table, resource, token, session);
        } catch (SQLException ex) {
            // MariaDB and H2 undo only the failed statement, so the transaction can still read.
            if (readOnly && isReadOnlyRefusal(ex)) {
                return read(connection, table, resource, token);
            }
            throw ex;
        }
    }

    /** The verdict of a read-only transaction: accepted unless a larger token is stored; no row is locked. */
    final Verdict read(Connection connection, FenceTable table, String resource, long token) throws SQLException {
        Long stored = readToken(connection, "SELECT token FROM " + table + " WHERE resource = ?", resource);
        return (stored == null || stored <= token) ? Verdict.READ : new Verdict(false, stored, false);
    }

    /** Whether {@code ex} is the database refusing a write because the transaction is read-only. */
    boolean isReadOnlyRefusal(SQLException ex) {
        // SQLSTATE 25006 (read_only_sql_transaction); MariaDB error 1792; H2 error 90097.
        return "25006".equals(ex.getSQLState()) || ex.getErrorCode() == 1792 || ex.getErrorCode() == 90097;
    }

    /** The family whose readers and statement rules apply to this database's SQL text. */
    abstract SqlText.Family family();

    /** A query whose one boolean says whether the session has an open transaction that wrote. */
    abstract String openWritingTransactionSql();

    /** A query whose one string names the table {@code table} resolves to in the session, as it is now. */
    abstract String tableIdentitySql(FenceTable table);

    /**
     * Whether {@code connection}'s session has an open transaction that wrote. Asked of a connection
     * on which nothing ran since its transaction presented a fence: if it has one, it is that one,
     * and the fence row's lock is still held.
     *
     * @throws SQLException when the session cannot answer, e.g. its transaction failed and waits
     *     for a rollback
     */
    final boolean hasOpenWritingTransaction(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(openWritingTransactionSql());
                ResultSet rows = statement.executeQuery()) {
            return rows.next() && rows.getBoolean(1);
        }
    }

    /** Which table {@code table} names in {@code connection}'s session now (its schema or catalog resolved). */
    final String tableIdentity(Connection connection, FenceTable table) throws SQLException {
        String identity = readString(connection, tableIdentitySql(table));
        return (identity != null) ? identity : "missing:" + table;
    }

    /** The length of {@code resource} as this database measures its {@code VARCHAR} columns. */
    int length(String resource) {
        return resource.codePointCount(0, resource.length());
    }

    /** Whether {@code ex} says the fence table does not exist. */
    abstract boolean isMissingTable(SQLException ex);

    /**
     * Runs the conditional upsert, and puts {@code session}'s settings in the session (in the same
     * statement where the dialect can).
     */
    int upsert(Connection connection, FenceTable table, String resource, long token, SessionSettings session)
            throws SQLException {
        if (session.fence() != null) {
            FenceProtection.setSessionFence(connection, this, session.fence());
        }
        try (PreparedStatement statement = connection.prepareStatement(upsertSql(table))) {
            statement.setString(1, resource);
            statement.setLong(2, token);
            return statement.executeUpdate();
        }
    }

    static @Nullable String readString(Connection connection, String sql) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql);
                ResultSet rows = statement.executeQuery()) {
            return rows.next() ? rows.getString(1) : null;
        }
    }

    static @Nullable Long readToken(Connection connection, String sql, String resource) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, resource);
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() ? rows.getLong(1) : null;
            }
        }
    }

    /** The database family's name for messages, e.g. {@code MariaDB/MySQL}. */
    public String displayName() {
        return this.displayName;
    }

    /**
     * The outcome of presenting a token.
     *
     * @param accepted whether the token is the resource's highest accepted token
     * @param storedToken the token the table holds when refused, if it was read
     * @param rowLocked whether this transaction now holds the fence row's lock (false for a read)
     */
    record Verdict(boolean accepted, @Nullable Long storedToken, boolean rowLocked) {

        static final Verdict ACCEPTED = new Verdict(true, null, true);

        static final Verdict READ = new Verdict(true, null, false);

        Verdict(boolean accepted, @Nullable Long storedToken) {
            this(accepted, storedToken, accepted);
        }
    }
}
