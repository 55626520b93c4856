package dev.fencelock.autoconfigure;

import dev.fencelock.jdbc.FenceDialect;
import dev.fencelock.jdbc.FenceTable;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Fencing at the data store: the JDBC and R2DBC guards on the application's databases ({@code fencelock.fencing.*}). */
public class FencingProperties {

    /**
     * Whether to wrap every DataSource bean so that, under a lock, the first statement of each
     * transaction presents the lock's fencing token to the fence table.
     */
    private boolean enabled = true;

    /**
     * Stable name of the lock store whose tokens this application presents, such as the etcd
     * cluster's name; fence rows are keyed by it, so lock stores sharing one fence table never
     * compare their tokens. Unset: rows are keyed by the bare resource.
     */
    private @Nullable String scope;

    /**
     * Whether to present each token to the resource's unscoped fence row as well, while a scope is
     * rolled out to instances that still write without it.
     */
    private boolean scopeRollout;

    private final Jdbc jdbc = new Jdbc();

    private final R2dbc r2dbc = new R2dbc();

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public @Nullable String getScope() {
        return this.scope;
    }

    public void setScope(@Nullable String scope) {
        this.scope = scope;
    }

    public boolean isScopeRollout() {
        return this.scopeRollout;
    }

    public void setScopeRollout(boolean scopeRollout) {
        this.scopeRollout = scopeRollout;
    }

    public Jdbc getJdbc() {
        return this.jdbc;
    }

    public R2dbc getR2dbc() {
        return this.r2dbc;
    }

    /**
     * The R2DBC guard: it presents fences to the same fence table and protected tables as the JDBC
     * guard ({@code fencelock.fencing.jdbc.*}).
     */
    public static class R2dbc {

        /**
         * Whether to wrap every R2DBC ConnectionFactory bean so that, under a lock, each transaction
         * presents the lock's fencing token to the fence table and the protected tables.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** The fence table the JDBC guard writes to. */
    public static class Jdbc {

        /** Name of the fence table, optionally qualified as schema.table. */
        private String table = FenceTable.DEFAULT_NAME;

        /** Length of the fence table's resource column, in characters; must match the DDL. */
        private int resourceLength = FenceTable.DEFAULT_RESOURCE_LENGTH;

        /**
         * When to create the fence table at startup if it is missing; otherwise a missing table stops
         * the application.
         */
        private FenceLockProperties.InitializationMode initializeSchema =
                FenceLockProperties.InitializationMode.EMBEDDED;

        /** SQL dialect of the fence statements; detected from the database when not set. */
        private @Nullable FenceDialect dialect;

        /**
         * Tables the database protects itself: a trigger on each refuses a write whose fencing token
         * is older than the fence table's, or that carries none, whichever client sends it. Created
         * with the fence table when initialize-schema applies, otherwise checked at startup.
         */
        private List<String> protectedTables = new ArrayList<>();

        /**
         * Whether the JDBC guard presents each fencing token to the fence table before a
         * transaction's first statement. Turned off, only the protected tables' triggers check the
         * token, and writes to other tables are not fenced; needs protected tables.
         */
        private boolean checkInClient = true;

        /**
         * Whether the database ends a fenced transaction that sits idle longer than its lease has
         * left, so that a holder frozen inside its transaction releases the fence row within about
         * one lease.
         */
        private boolean boundIdleTransactions = true;

        /**
         * Whether a statement that runs a procedure (CALL, EXECUTE, a CallableStatement) may run
         * under a lock on MariaDB/MySQL and H2, where a procedure may commit and go on writing past
         * the fence guard. Allow it only for procedures that never commit, or that write only
         * protected tables.
         */
        private boolean allowProcedureCalls;

        public String getTable() {
            return this.table;
        }

        public void setTable(String table) {
            this.table = table;
        }

        public int getResourceLength() {
            return this.resourceLength;
        }

        public void setResourceLength(int resourceLength) {
            this.resourceLength = resourceLength;
        }

        public FenceLockProperties.InitializationMode getInitializeSchema() {
            return this.initializeSchema;
        }

        public void setInitializeSchema(FenceLockProperties.InitializationMode initializeSchema) {
            this.initializeSchema = initializeSchema;
        }

        public @Nullable FenceDialect getDialect() {
            return this.dialect;
        }

        public void setDialect(@Nullable FenceDialect dialect) {
            this.dialect = dialect;
        }

        public List<String> getProtectedTables() {
            return this.protectedTables;
        }

        public void setProtectedTables(List<String> protectedTables) {
            this.protectedTables = protectedTables;
        }

        public boolean isCheckInClient() {
            return this.checkInClient;
        }

        public void setCheckInClient(boolean checkInClient) {
            this.checkInClient = checkInClient;
        }

        public boolean isBoundIdleTransactions() {
            return this.boundIdleTransactions;
        }

        public void setBoundIdleTransactions(boolean boundIdleTransactions) {
            this.boundIdleTransactions = boundIdleTransactions;
        }

        public boolean isAllowProcedureCalls() {
            return this.allowProcedureCalls;
        }

        public void setAllowProcedureCalls(boolean allowProcedureCalls) {
            this.allowProcedureCalls = allowProcedureCalls;
        }
    }
}
