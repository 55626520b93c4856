package dev.fencelock.autoconfigure.fencing;

import org.jspecify.annotations.Nullable;

/**
 * Stops the application because the lock store's current revision is below the highest fencing
 * token a fence table has accepted: new locks would get tokens the table has already seen (an
 * etcd restored from a snapshot, or another cluster writing the same fence rows). {@link
 * LockStoreBehindFencesFailureAnalyzer} reports it with the procedure.
 */
public class LockStoreBehindFencesException extends IllegalStateException {

    private final String store;

    private final long revision;

    private final long highestToken;

    private final String table;

    private final @Nullable String scope;

    private final String dataSourceBean;

    /**
     * Creates the exception.
     *
     * @param store the lock store, as {@link dev.fencelock.spi.LockBackend#describe()} names it
     * @param revision the lock store's current revision
     * @param highestToken the highest token of the scope in the fence table
     * @param table the fence table
     * @param scope the fence scope, if one is configured
     * @param dataSourceBean the name of the data source bean whose database holds the table
     */
    public LockStoreBehindFencesException(
            String store,
            long revision,
            long highestToken,
            String table,
            @Nullable String scope,
            String dataSourceBean) {
        super(description(store, revision, highestToken, table, scope, dataSourceBean) + " " + action(highestToken));
        this.store = store;
        this.revision = revision;
        this.highestToken = highestToken;
        this.table = table;
        this.scope = scope;
        this.dataSourceBean = dataSourceBean;
    }

    /** The lock store, as its backend describes it. */
    public String getStore() {
        return this.store;
    }

    /** The lock store's current revision. */
    public long getRevision() {
        return this.revision;
    }

    /** The highest fencing token the fence table holds for the scope. */
    public long getHighestToken() {
        return this.highestToken;
    }

    /** The fence table. */
    public String getTable() {
        return this.table;
    }

    /** The fence scope, if one is configured. */
    public @Nullable String getScope() {
        return this.scope;
    }

    /** The data source bean whose database holds the fence table. */
    public String getDataSourceBean() {
        return this.dataSourceBean;
    }

    static String description(
            String store,
            long revision,
            long highestToken,
            String table,
            @Nullable String scope,
            String dataSourceBean) {
        String rows = (scope != null) ? "rows of scope '" + scope + "'" : "unscoped rows";
        return "The current revision of lock store " + store + " (" + revision
                + ") is below the highest fencing token (" + highestToken
                + ") in fence table '" + table + "' (" + rows + ") of DataSource bean '" + dataSourceBean + "'."
                + " Tokens are etcd revisions, so new locks would get tokens the table has already accepted: the"
                + " database would refuse their holders, and a holder from before with a larger token could"
                + " overwrite their work. etcd was most likely restored from a snapshot, or another etcd cluster"
                + " writes the same fence rows.";
    }

    static String action(long highestToken) {
        return "Stop every writer, then raise etcd's revision above " + highestToken
                + " before any instance starts (etcd 3.5+: restore with 'etcdutl snapshot restore --bump-revision"
                + " <gap> --mark-compacted'; otherwise write a scratch key until the revision is past it), as"
                + " described under 'Restoring etcd from a snapshot' in docs/operations.md. If another etcd"
                + " cluster shares this fence table, give each its own fencelock.fencing.scope instead.";
    }
}
