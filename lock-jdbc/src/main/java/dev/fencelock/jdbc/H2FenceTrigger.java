package dev.fencelock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.value.Value;
import org.h2.value.ValueBigint;
import org.h2.value.ValueVarchar;
import org.jspecify.annotations.Nullable;

/**
 * H2's side of a protected table ({@link FenceProtection}): a trigger that checks, before every
 * {@code INSERT}, {@code UPDATE} and {@code DELETE} statement on the table, the fences the client put in
 * the session for the current transaction, against the fence table named in the trigger's remarks.
 *
 * <p>The client sets the fences with {@code CALL FENCELOCK_SET_FENCE(?)} ({@link #setFence}), which
 * stores them with the sequence number of the session's current transaction; the trigger counts
 * them only in that transaction, so a fence set in a transaction that ended (by a commit the client
 * did not see, say) never counts. H2 2.x, embedded or server-side: it reads the session's
 * transaction through H2's engine classes.
 */
public final class H2FenceTrigger implements org.h2.api.Trigger {

    /** The function alias the client calls to put its fences in the session. */
    static final String SET_FENCE = "FENCELOCK_SET_FENCE";

    private static final String FENCE = "FENCELOCK_FENCE";

    private static final String TRANSACTION = "FENCELOCK_TRANSACTION";

    private static final String CHECKED = "FENCELOCK_CHECKED";

    private static final String BYPASS = "FENCELOCK_BYPASS";

    private @Nullable String fenceTable;

    private String schema = "?";

    private String trigger = "?";

    private String table = "?";

    @Override
    public void init(Connection connection, String schema, String trigger, String table, boolean before, int type) {
        this.schema = schema;
        this.trigger = trigger;
        this.table = table;
    }

    @Override
    public void fire(Connection connection, Object[] oldRow, Object[] newRow) throws SQLException {
        SessionLocal session = session(connection);
        if ("on".equals(string(session.getVariable(BYPASS)))) {
            return;
        }
        String fence = string(session.getVariable(FENCE));
        long transaction = session.getTransaction().getSequenceNum();
        Value setIn = session.getVariable(TRANSACTION);
        if (fence == null || fence.isEmpty() || !(setIn instanceof ValueBigint) || setIn.getLong() != transaction) {
            throw new SQLException(
                    "fencelock: write to protected table " + this.table + " carries no fence in this transaction:"
                            + " write under a lock through a fenced data source with this table among its protected"
                            + " tables, or set @FENCELOCK_BYPASS",
                    FenceProtection.NO_FENCE);
        }
        if (fence.startsWith(SessionFence.RIDER)) {
            throw new SQLException(
                    "fencelock: write to protected table " + this.table + " from a transaction nested in a fenced one"
                            + " of the same thread, which holds the fence row: write it in the outer transaction",
                    FenceProtection.NESTED);
        }
        Value checked = session.getVariable(CHECKED);
        if (checked instanceof ValueBigint && checked.getLong() == transaction) {
            return;
        }
        FenceTable table = FenceTable.named(fenceTable(connection));
        for (String item : fence.split(String.valueOf(SessionFence.SEPARATOR))) {
            int colon = item.indexOf(':');
            long token = Long.parseLong(item.substring(0, colon));
            String key = item.substring(colon + 1);
            FenceDialect.Verdict verdict = FenceDialect.H2.advance(connection, table, key, token, SessionSettings.NONE);
            if (!verdict.accepted()) {
                throw new SQLException(
                        "fencelock: stale " + token + " < " + verdict.storedToken() + " for " + key
                                + ", refused by protected table " + this.table,
                        FenceProtection.STALE);
            }
        }
        session.setVariable(CHECKED, ValueBigint.get(transaction));
    }

    /** The fence table named in the trigger's remarks (written just after the trigger is created, so read at first use). */
    private String fenceTable(Connection connection) throws SQLException {
        if (this.fenceTable == null) {
            try (PreparedStatement statement = connection.prepareStatement(
                    "SELECT REMARKS FROM INFORMATION_SCHEMA.TRIGGERS WHERE TRIGGER_SCHEMA = ? AND TRIGGER_NAME = ?")) {
                statement.setString(1, this.schema);
                statement.setString(2, this.trigger);
                try (ResultSet rows = statement.executeQuery()) {
                    this.fenceTable = rows.next() ? rows.getString(1) : null;
                }
            }
            if (this.fenceTable == null || this.fenceTable.isEmpty()) {
                throw new SQLException(
                        "fencelock: trigger " + this.trigger + " on " + this.table + " names no fence"
                                + " table in its remarks (COMMENT ON TRIGGER … IS '<fence table>')",
                        "FL000");
            }
        }
        return this.fenceTable;
    }

    /**
     * Puts {@code fence} in the session for the current transaction; the function behind {@code
     * CALL FENCELOCK_SET_FENCE(?)}.
     */
    public static int setFence(Connection connection, String fence) throws SQLException {
        SessionLocal session = session(connection);
        session.setVariable(FENCE, ValueVarchar.get(fence));
        session.setVariable(
                TRANSACTION, ValueBigint.get(session.getTransaction().getSequenceNum()));
        return 1;
    }

    private static SessionLocal session(Connection connection) throws SQLException {
        return (SessionLocal) connection.unwrap(JdbcConnection.class).getSession();
    }

    private static @Nullable String string(@Nullable Value value) {
        return (value == null || value == org.h2.value.ValueNull.INSTANCE) ? null : value.getString();
    }
}
