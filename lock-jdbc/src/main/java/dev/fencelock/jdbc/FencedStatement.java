package dev.fencelock.jdbc;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import java.lang.reflect.Method;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A statement of a fenced connection. Before anything executes, it tells the connection what the
 * SQL does to the transaction (so it can refuse it, run the guard, or forget a check the statement
 * ends); after a row-fenced update ({@link FencedRowComment}) it turns "no row changed" into a
 * {@link FencingTokenRejectedException}.
 */
final class FencedStatement extends FencedJdbcObject {

    /** The SQL of a prepared or callable statement, or {@code null} for a plain one. */
    private final @Nullable String sql;

    /** {@code table.column} of a row-fenced prepared update, or {@code null}. */
    private final @Nullable String fencedRow;

    /** Texts added with {@code addBatch(String)}, or one entry per {@code addBatch()} of a prepared statement. */
    private final List<String> batch = new ArrayList<>();

    private TransactionBoundary.@Nullable Effect preparedEffect;

    private @Nullable Object proxy;

    FencedStatement(FencedConnection connection, Statement target, @Nullable String sql) {
        super(connection, target, null);
        this.sql = sql;
        this.fencedRow = (sql != null) ? FencedRowComment.fencedRow(sql) : null;
    }

    void setProxy(Object proxy) {
        this.proxy = proxy;
    }

    @Override
    public @Nullable Object invoke(Object self, Method method, @Nullable Object[] args) throws Throwable {
        String name = method.getName();
        if (name.startsWith("execute")) {
            return execute(self, method, args);
        }
        switch (name) {
            case "addBatch":
                this.batch.add((args != null && args.length == 1) ? (String) args[0] : String.valueOf(this.sql));
                break;
            case "clearBatch":
                this.batch.clear();
                break;
            case "toString":
                return "FencedStatement[" + this.target + "]";
            default:
                return super.invoke(self, method, args);
        }
        return call(this.target, method, args);
    }

    private @Nullable Object execute(Object self, Method method, @Nullable Object[] args) throws Throwable {
        boolean isBatch = method.getName().endsWith("Batch");
        String text = (args != null && args.length > 0 && args[0] instanceof String given) ? given : this.sql;
        TransactionBoundary.@Nullable Effect effect = null;
        Object result;
        try {
            effect = this.connection.tracksStatements() ? effect(isBatch, text) : null;
            if (effect != null) {
                this.connection.beforeExecute(effect, isBatch ? String.join("; ", this.batch) : text);
            }
            result = call(this.target, method, args);
        } catch (SQLException ex) {
            this.connection.failed();
            RuntimeException refusal = this.connection.refusalOf(ex);
            if (refusal != null) {
                throw refusal;
            }
            throw ex;
        } finally {
            if (isBatch) {
                this.batch.clear();
            }
            if (effect != null) {
                this.connection.afterExecute(effect);
            }
        }
        String fencedRow = (this.fencedRow != null || text == null) ? this.fencedRow : FencedRowComment.fencedRow(text);
        if (fencedRow != null && changedNoRow(result)) {
            throw rowRejected(fencedRow);
        }
        return this.connection.fenced(result, method.getReturnType(), self);
    }

    private TransactionBoundary.Effect effect(boolean isBatch, @Nullable String text) throws SQLException {
        if (isBatch) {
            return this.connection.effectOf(this.batch);
        }
        if (text == null) {
            return TransactionBoundary.Effect.OPAQUE_CALL;
        }
        if (text == this.sql) {
            if (this.preparedEffect == null) {
                this.preparedEffect = this.connection.effectOf(Collections.singletonList(text));
            }
            return this.preparedEffect;
        }
        return this.connection.effectOf(Collections.singletonList(text));
    }

    /** A row-fenced update that changed no row: a newer holder wrote the row with a larger token. */
    private FencingTokenRejectedException rowRejected(String fencedRow) {
        Fence fence = FencingContext.writeFence().orElse(null);
        String resource = (fence != null) ? fence.resource() : "?";
        long token = (fence != null) ? fence.token() : -1;
        return this.connection.reported(new FencingTokenRejectedException(
                resource,
                token,
                "Fenced update of " + fencedRow + " with fencing token " + token + " for lock '" + resource
                        + "' changed no row: a newer lock holder already wrote the row with a larger token (or"
                        + " the row was deleted). Roll back; this process no longer holds the lock.",
                FencingTokenRejectedException.RefusedBy.ROW));
    }

    private static boolean changedNoRow(@Nullable Object result) {
        if (result instanceof Number count) {
            return count.longValue() == 0;
        }
        if (result instanceof int[] counts) {
            for (int count : counts) {
                if (count == 0) {
                    return true;
                }
            }
        }
        if (result instanceof long[] counts) {
            for (long count : counts) {
                if (count == 0) {
                    return true;
                }
            }
        }
        return false;
    }
}
