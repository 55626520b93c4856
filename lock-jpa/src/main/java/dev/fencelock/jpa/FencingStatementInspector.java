package dev.fencelock.jpa;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.LockException;
import dev.fencelock.jdbc.FencedRowComment;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.hibernate.resource.jdbc.spi.StatementInspector;

/**
 * Hibernate {@link StatementInspector} that makes the {@code UPDATE}s of tables with a {@link
 * FencingToken} column conditional on the current fencing token: {@code update stock set ... where
 * sku=?} becomes {@code update stock set ... where (sku=?) and fence_token<=7}, followed by a
 * comment that lets the fenced data source report "no row changed" as a {@link
 * dev.fencelock.FencingTokenRejectedException}.
 *
 * <p>The token is a {@code long} written as a literal, so nothing from outside reaches the SQL
 * text; table and column names come from the entity mapping. Statements of threads without a
 * fence, and of other tables, are returned unchanged.
 *
 * <p>Set it as {@code hibernate.session_factory.statement_inspector} (the Spring Boot
 * auto-configuration does); {@link FencingTokenIntegrator} registers the fenced tables at
 * startup.
 */
public final class FencingStatementInspector implements StatementInspector {

    private static final long serialVersionUID = 1L;

    private static final Pattern UPDATE = Pattern.compile("\\s*update\\s+([^\\s(]+)\\s", Pattern.CASE_INSENSITIVE);

    private static final Pattern WHERE = Pattern.compile("\\swhere\\s", Pattern.CASE_INSENSITIVE);

    /** Normalised table name → token column. */
    private final Map<String, String> columns = new ConcurrentHashMap<>();

    /** Fences updates of {@code table} on {@code column}. */
    public void register(String table, String column) {
        this.columns.put(normalise(table), column);
    }

    @Override
    public String inspect(String sql) {
        if (this.columns.isEmpty()) {
            return sql;
        }
        Matcher update = UPDATE.matcher(sql);
        if (!update.lookingAt()) {
            return sql;
        }
        String table = normalise(update.group(1));
        String column = this.columns.get(table);
        Optional<Fence> fence = FencingContext.current();
        if (column == null || fence.isEmpty()) {
            return sql;
        }
        String condition = column + "<=" + fence.get().token();
        Matcher where = WHERE.matcher(sql);
        String fenced;
        if (!where.find()) {
            fenced = sql + " where " + condition;
        } else {
            int start = where.start();
            int end = where.end();
            if (where.find()) {
                // A subquery: the outer WHERE cannot be told apart reliably, so refuse, loudly.
                throw new LockException("Cannot add the fencing condition to this update of '" + table
                        + "' (more than one WHERE): " + sql + ". Write it with FencedWrites.condition(\"" + column
                        + "\") instead.");
            }
            fenced = sql.substring(0, start) + " where (" + sql.substring(end) + ") and " + condition;
        }
        return FencedRowComment.append(fenced, table, column);
    }

    private static String normalise(String table) {
        String name = table.substring(table.lastIndexOf('.') + 1);
        return name.replace("\"", "").replace("`", "").toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return "FencingStatementInspector" + this.columns;
    }
}
