package dev.fencelock.jdbc;

import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.InvalidLockKeyException;
import dev.fencelock.LockException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Makes the database refuse a stale lock holder: presents a fence to the fence table on a
 * connection, inside that connection's transaction.
 *
 * <p>The upsert either records the token as the resource's highest or refuses it because a newer
 * holder already wrote. Run it on the same connection and in the same transaction as the writes
 * the lock protects: the row lock it takes makes other fenced writers of the resource wait until
 * this transaction commits or rolls back, so "token still current" and "business write" commit
 * together or not at all. {@link FencedDataSource} does this for every transaction automatically.
 *
 * <pre>{@code
 * connection.setAutoCommit(false);
 * guard.check(connection, fence);          // throws FencingTokenRejectedException when stale
 * ... business writes ...
 * connection.commit();
 * }</pre>
 *
 * <p>One guard serves one database (its dialect is detected once, from the first connection).
 *
 * <p><b>Scopes.</b> Tokens are etcd revisions, comparable only within one etcd cluster. When
 * several clusters (or namespaces) share one fence table, give each its own {@linkplain
 * Builder#scope scope}: its rows are keyed {@code <scope>␟<resource>} (U+001F, a character no
 * resource name may contain), so a token is never compared with another cluster's. Without a
 * scope, rows are keyed by the bare resource, as before scopes existed.
 */
public final class FenceGuard {

    /** Separates the scope from the resource in a row key; resource names never contain it. */
    static final char SCOPE_SEPARATOR = '\u001F';

    private final FenceTable table;

    private final @Nullable String scope;

    private final boolean scopeRollout;

    private final @Nullable FenceDialect configuredDialect;

    private final boolean allowProcedureCalls;

    private final List<String> protectedTables;

    private final boolean checkInClient;

    private final boolean boundIdleTransactions;

    private volatile @Nullable FenceDialect detectedDialect;

    private volatile @Nullable SqlReader reader;

    private FenceGuard(
            FenceTable table,
            @Nullable String scope,
            boolean scopeRollout,
            @Nullable FenceDialect dialect,
            boolean allowProcedureCalls,
            List<String> protectedTables,
            boolean checkInClient,
            boolean boundIdleTransactions) {
        this.table = table;
        this.scope = scope;
        this.scopeRollout = scopeRollout;
        this.configuredDialect = dialect;
        this.allowProcedureCalls = allowProcedureCalls;
        this.protectedTables = protectedTables;
        this.checkInClient = checkInClient;
        this.boundIdleTransactions = boundIdleTransactions;
    }

    /** A guard on the default table ({@value FenceTable#DEFAULT_NAME}), dialect detected. */
    public static FenceGuard create() {
        return builder().build();
    }

    /** Starts configuring a guard. */
    public static Builder builder() {
        return new Builder();
    }

    /** The table this guard writes fences to. */
    public FenceTable table() {
        return this.table;
    }

    /** The scope of this guard's rows, if it has one. */
    public @Nullable String scope() {
        return this.scope;
    }

    /**
     * Presents {@code fence} to the database in {@code connection}'s current transaction.
     *
     * @throws FencingTokenRejectedException when the fence's lease is already known to be lost
     *     (without touching the database), when its store issues no fencing tokens (Redis; also
     *     without touching it), or when the database holds a newer token for the resource; the
     *     transaction must roll back
     * @throws InvalidLockKeyException when the resource does not fit the fence table's column
     *     (nothing is sent to the database)
     * @throws LockException when the fence table does not exist
     * @throws SQLException for any other database error
     */
    public void check(Connection connection, Fence fence) throws SQLException {
        present(connection, fence, null, SessionSettings.NONE);
    }

    /**
     * {@link #check}, with what the caller knows of the connection's read-only flag ({@code null}:
     * ask the connection).
     *
     * @return whether the transaction now holds the fence row's lock: false after a read-only
     *     transaction's plain read, which locks nothing
     */
    boolean present(Connection connection, Fence fence, @Nullable Boolean readOnly, SessionSettings session)
            throws SQLException {
        checkLocally(connection, fence);
        String resource = fence.resource();
        String key = rowKey(resource);
        FenceDialect dialect = dialect(connection);
        boolean readOnlyHint = (readOnly != null) ? readOnly : connection.isReadOnly();
        boolean rowLocked = true;
        if (this.scopeRollout) {
            // The unscoped row first, always in this order, so two scoped guards never wait on each other in a cycle.
            rowLocked =
                    advance(connection, dialect, resource, resource, fence.token(), readOnlyHint, SessionSettings.NONE);
        }
        return advance(connection, dialect, resource, key, fence.token(), readOnlyHint, session) && rowLocked;
    }

    /**
     * What the guard checks without asking the database: the lease is not known to be lost, and the
     * resource fits the fence table.
     */
    void checkLocally(Connection connection, Fence fence) throws SQLException {
        checkLocally(fence, null);
        checkLength(fence.resource(), dialect(connection).length(rowKey(fence.resource())));
    }

    /** {@link #checkLocally(Connection, Fence)} with the database's dialect, if known. */
    void checkLocally(Fence fence, @Nullable FenceDialect dialect) {
        String resource = fence.resource();
        if (!fence.isValid()) {
            // Invariant 6: a holder that knows it lost the lock must not even try.
            throw GuardMessages.lost(resource, fence.token());
        }
        if (!fence.fencing()) {
            throw FencingTokenRejectedException.notFencing(
                    resource, fence.token(), "refused the write before it reached the database");
        }
        if (resource.indexOf(SCOPE_SEPARATOR) >= 0) {
            throw new InvalidLockKeyException("Lock resource '" + GuardMessages.preview(resource)
                    + "' contains U+001F, which separates a fence row's scope from its resource; nothing was written.");
        }
        String key = rowKey(resource);
        // Code points first, so an over-long resource fails before the connection is even asked.
        checkLength(resource, key.codePointCount(0, key.length()));
        if (dialect != null) {
            checkLength(resource, dialect.length(key));
        }
    }

    private boolean advance(
            Connection connection,
            FenceDialect dialect,
            String resource,
            String key,
            long token,
            boolean readOnly,
            SessionSettings session)
            throws SQLException {
        FenceDialect.Verdict verdict;
        try {
            verdict = dialect.present(connection, this.table, key, token, readOnly, session);
        } catch (SQLException ex) {
            if (dialect.isMissingTable(ex)) {
                throw new LockException(GuardMessages.missingTable(this.table, dialect), ex);
            }
            throw ex;
        }
        if (!verdict.accepted()) {
            throw GuardMessages.rejected(this.table, resource, token, verdict.storedToken());
        }
        return verdict.rowLocked();
    }

    /**
     * The highest token this guard's scope has accepted in {@code connection}'s database, 0 when it
     * has none: no token of this scope's lock store may be lower than it and still be accepted.
     */
    public long highestToken(Connection connection) throws SQLException {
        String sql;
        String pattern;
        if (this.scope != null) {
            // '!' escapes the scope's own LIKE wildcards; it needs no escaping in any dialect's string literal.
            sql = "SELECT MAX(token) FROM " + this.table + " WHERE resource LIKE ? ESCAPE '!'";
            pattern = this.scope.replace("!", "!!").replace("%", "!%").replace("_", "!_") + SCOPE_SEPARATOR + "%";
        } else {
            sql = "SELECT MAX(token) FROM " + this.table + " WHERE resource NOT LIKE ?";
            pattern = "%" + SCOPE_SEPARATOR + "%";
        }
        Long highest = FenceDialect.readToken(connection, sql, pattern);
        return (highest != null) ? highest : 0;
    }

    /**
     * The fence row key of {@code resource}: the resource itself, or {@code <scope>␟<resource>}
     * (U+001F between them) with a scope; for operators' and tests' own queries of the table.
     */
    public String rowKey(String resource) {
        return (this.scope != null) ? this.scope + SCOPE_SEPARATOR + resource : resource;
    }

    /**
     * Creates the fence table if it does not exist yet (the {@code initialize-schema} step). In
     * production prefer adding {@link FenceDialect#createTableSql(FenceTable)} to your migrations.
     */
    public void createTableIfMissing(Connection connection) throws SQLException {
        FenceDialect dialect = dialect(connection);
        SchemaChanges.serialized(connection, dialect, () -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute(dialect.createTableSql(this.table));
            }
        });
    }

    /** The tables whose triggers check the fence in the database ({@link FenceProtection}); empty when none. */
    public List<String> protectedTables() {
        return this.protectedTables;
    }

    /**
     * Whether the client presents each fence to the fence table itself before the first statement of
     * a transaction (the default), or leaves the check to the protected tables' triggers alone.
     */
    public boolean checksInClient() {
        return this.checkInClient;
    }

    /**
     * Whether a transaction that presented a fence with a lease may sit idle no longer than the
     * lease has left (PostgreSQL: {@code idle_in_transaction_session_timeout} for the transaction;
     * MariaDB: {@code idle_write_transaction_timeout} for the session, given back when the
     * connection is closed). The database then ends a frozen holder's session and its fence row
     * lock goes with it, so the next holder waits about one lease at most.
     */
    public boolean boundsIdleTransactions() {
        return this.boundIdleTransactions;
    }

    /**
     * Installs (or replaces) the protection of every protected table; see {@link FenceProtection#ddl}.
     * Instances that start together may all call this at once: their changes run one after another.
     */
    public void protectTables(Connection connection) throws SQLException {
        FenceDialect dialect = dialect(connection);
        SchemaChanges.serialized(connection, dialect, () -> {
            for (String table : this.protectedTables) {
                FenceProtection.install(connection, dialect, this.table, table);
            }
        });
    }

    /** The protected tables that do not carry FenceLock's triggers in {@code connection}'s database. */
    public List<String> unprotectedTables(Connection connection) throws SQLException {
        FenceDialect dialect = dialect(connection);
        List<String> missing = new ArrayList<>();
        for (String table : this.protectedTables) {
            if (!FenceProtection.isProtected(connection, dialect, table)) {
                missing.add(table);
            }
        }
        return missing;
    }

    /** The fence rows {@code fence} is presented to: its row, and during a scope rollout the unscoped one too. */
    List<SessionFence.Row> rows(Fence fence) {
        List<SessionFence.Row> rows = new ArrayList<>(2);
        if (this.scopeRollout) {
            rows.add(new SessionFence.Row(fence.resource(), fence.token()));
        }
        rows.add(new SessionFence.Row(rowKey(fence.resource()), fence.token()));
        return rows;
    }

    /** Whether statements that run a procedure may run under a fence where procedures can commit. */
    public boolean allowsProcedureCalls() {
        return this.allowProcedureCalls;
    }

    /** How this guard's database reads SQL text; found out once, from the first connection. */
    SqlReader reader(Connection connection) throws SQLException {
        SqlReader reader = this.reader;
        if (reader == null) {
            reader = SqlReader.of(connection, this);
            this.reader = reader;
        }
        return reader;
    }

    /** The configured dialect, or the one detected from {@code connection}'s database. */
    public FenceDialect dialect(Connection connection) throws SQLException {
        if (this.configuredDialect != null) {
            return this.configuredDialect;
        }
        FenceDialect dialect = this.detectedDialect;
        if (dialect == null) {
            dialect = FenceDialect.detect(connection);
            this.detectedDialect = dialect;
        }
        return dialect;
    }

    private void checkLength(String resource, int length) {
        if (length > this.table.resourceLength()) {
            throw new InvalidLockKeyException(GuardMessages.tooLong(this.table, this.scope, resource, length));
        }
    }

    @Override
    public String toString() {
        String dialect = (this.configuredDialect != null) ? this.configuredDialect.name() : "detected";
        String scoped = (this.scope != null) ? ", scope=" + this.scope + (this.scopeRollout ? " (rollout)" : "") : "";
        return "FenceGuard[table=" + this.table + scoped + ", dialect=" + dialect + "]";
    }

    /** Configures a {@link FenceGuard}. */
    public static final class Builder {

        private String tableName = FenceTable.DEFAULT_NAME;

        private int resourceLength = FenceTable.DEFAULT_RESOURCE_LENGTH;

        private @Nullable FenceDialect dialect;

        private @Nullable String scope;

        private boolean scopeRollout;

        private boolean allowProcedureCalls;

        private final List<String> protectedTables = new ArrayList<>();

        private boolean checkInClient = true;

        private boolean boundIdleTransactions = true;

        private Builder() {}

        /** The fence table, optionally {@code schema.table}; validated as a plain identifier. */
        public Builder table(String name) {
            this.tableName = name;
            return this;
        }

        /** The length of the table's {@code resource} column (default 255). */
        public Builder resourceLength(int length) {
            this.resourceLength = length;
            return this;
        }

        /**
         * Keys this guard's rows by {@code scope} as well as the resource, so that lock stores whose
         * tokens cannot be compared (two etcd clusters, two namespaces) can share one fence table.
         * Choose a stable name (not etcd's cluster id, which a restore from a snapshot changes);
         * printable, without leading or trailing white space, at most 128 characters.
         */
        public Builder scope(String scope) {
            this.scope = scope;
            return this;
        }

        /**
         * While a scope is being rolled out (instances without it, or an older FenceLock, may still
         * write): also presents each token to the resource's unscoped row, so that a row those
         * instances wrote still refuses a stale holder here, and a holder here still refuses theirs.
         * Turn it off once every instance has the scope and every lease from before has expired.
         */
        public Builder scopeRollout(boolean rollout) {
            this.scopeRollout = rollout;
            return this;
        }

        /**
         * Whether a statement that runs a procedure ({@code CALL}, {@code EXECUTE}, MariaDB's {@code
         * BEGIN NOT ATOMIC}, a {@code CallableStatement}) may run under a fence on MariaDB/MySQL and
         * H2, where a procedure may commit and go on writing inside that one statement, after the
         * guard's check has ended (default: false, such statements are refused under a fence). Allow
         * it only when the procedures called under locks never commit, or when the tables they write
         * are protected by the database's own fence (protected tables). On PostgreSQL procedures
         * cannot commit inside a transaction, and calls always run.
         */
        public Builder allowProcedureCalls(boolean allow) {
            this.allowProcedureCalls = allow;
            return this;
        }

        /**
         * Tables the database protects itself: triggers on them refuse a write whose fence is older
         * than the fence table's, or that carries none, whatever SQL it arrives in and from whichever
         * client ({@link FenceProtection}). With protected tables, the guard puts its fences in the
         * session for each transaction. Install the triggers with {@link FenceGuard#protectTables} or
         * a migration ({@link FenceProtection#ddl}).
         */
        public Builder protectedTables(String... tables) {
            return protectedTables(List.of(tables));
        }

        /** {@link #protectedTables(String...)} */
        public Builder protectedTables(Collection<String> tables) {
            this.protectedTables.addAll(tables);
            return this;
        }

        /**
         * Whether the client presents each fence to the fence table before the first statement of a
         * transaction (default: true). False leaves the check to the protected tables' triggers; then
         * writes to tables that are not protected are not fenced at all, and the client still refuses
         * what it knows is stale (a lost lease) or cannot read. Needs protected tables.
         */
        public Builder checkInClient(boolean check) {
            this.checkInClient = check;
            return this;
        }

        /**
         * Whether the database ends a fenced transaction that sits idle longer than its lease has left
         * (default: true): a holder frozen inside its transaction then keeps the fence row, and every
         * later holder of the resource waiting for it, for about one lease instead of for as long as
         * it stays frozen. The database ends the frozen holder's session (PostgreSQL
         * {@code idle_in_transaction_session_timeout}, MariaDB {@code idle_write_transaction_timeout});
         * a transaction that legitimately idles longer than its lease under the lock fails the same way.
         */
        public Builder boundIdleTransactions(boolean bound) {
            this.boundIdleTransactions = bound;
            return this;
        }

        /** Overrides dialect detection, e.g. for a database that reports another product name. */
        public Builder dialect(FenceDialect dialect) {
            this.dialect = dialect;
            return this;
        }

        /**
         * @throws IllegalArgumentException when the table name or column length is not valid
         */
        public FenceGuard build() {
            if (this.scope != null && !isValidScope(this.scope)) {
                throw new IllegalArgumentException("Fence scope '" + GuardMessages.preview(this.scope)
                        + "' must be 1 to 128 printable characters without leading or trailing white space");
            }
            if (this.scopeRollout && this.scope == null) {
                throw new IllegalArgumentException("A fence scope rollout needs a scope to roll out");
            }
            if (!this.checkInClient && this.protectedTables.isEmpty()) {
                throw new IllegalArgumentException(
                        "A fence guard that leaves the check to the database (checkInClient(false)) needs protected"
                                + " tables: without them nothing would check the fence");
            }
            this.protectedTables.forEach(FenceProtection::checkName);
            return new FenceGuard(
                    new FenceTable(this.tableName, this.resourceLength),
                    this.scope,
                    this.scopeRollout,
                    this.dialect,
                    this.allowProcedureCalls,
                    List.copyOf(this.protectedTables),
                    this.checkInClient,
                    this.boundIdleTransactions);
        }

        private static boolean isValidScope(String scope) {
            return !scope.isEmpty()
                    && scope.codePointCount(0, scope.length()) <= 128
                    && scope.strip().equals(scope)
                    && scope.codePoints()
                            .noneMatch(cp -> Character.isISOControl(cp)
                                    || Character.getType(cp) == Character.FORMAT
                                    || Character.getType(cp) == Character.SURROGATE);
        }
    }
}
