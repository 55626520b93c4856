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
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hibernate {@link StatementInspector} that makes the {@code UPDATE}s and {@code DELETE}s of tables
 * with a {@link FencingToken} column conditional on the current fencing token: {@code update stock
 * set ... where sku=?} becomes {@code update stock set ... where (sku=?) and fence_token<=7},
 * followed by a comment that lets the fenced data source report "no row changed" as a {@link
 * dev.fencelock.FencingTokenRejectedException}. A replaced holder's update or delete then changes
 * nothing, whatever the newer holder wrote.
 *
 * <p>The token is a {@code long} written as a literal, so nothing from outside reaches the SQL
 * text; table and column names come from the entity mapping. Comments anywhere in the statement
 * ({@code hibernate.use_sql_comments}, tracing tags) are skipped when the statement is read.
 * Statements of threads without a fence, and of other tables, are returned unchanged.
 *
 * <p>Set it as {@code hibernate.session_factory.statement_inspector} (the Spring Boot
 * auto-configuration does, around the application's own inspector if it has one); {@link
 * FencingTokenIntegrator} registers the fenced tables at startup.
 */
public final class FencingStatementInspector implements StatementInspector {

    private static final long serialVersionUID = 1L;

    /**
     * Logger of the statements as sent, with their fencing condition, at DEBUG. Hibernate's {@code
     * org.hibernate.SQL} logs a statement before this inspector rewrites it, so it shows fenced
     * updates and deletes without the condition.
     */
    public static final String LOGGER_NAME = "dev.fencelock.jpa.SQL";

    private static final Logger logger = LoggerFactory.getLogger(LOGGER_NAME);

    private static final Pattern WRITE =
            Pattern.compile("\\s*(?:update|delete\\s+from)\\s+([^\\s(]+)\\s", Pattern.CASE_INSENSITIVE);

    private static final Pattern WHERE = Pattern.compile("\\swhere\\s", Pattern.CASE_INSENSITIVE);

    /** Normalised table name → token column. */
    private final Map<String, String> columns = new ConcurrentHashMap<>();

    private final @Nullable StatementInspector applicationInspector;

    public FencingStatementInspector() {
        this(null);
    }

    /**
     * An inspector that first lets the application's own inspector (SQL comments for tracing, say)
     * rewrite each statement, then fences it.
     */
    public FencingStatementInspector(@Nullable StatementInspector applicationInspector) {
        this.applicationInspector = applicationInspector;
    }

    /** Fences updates and deletes of {@code table} on {@code column}. */
    public void register(String table, String column) {
        this.columns.put(normalise(table), column);
    }

    @Override
    public String inspect(String sql) {
        String inspected = (this.applicationInspector != null) ? this.applicationInspector.inspect(sql) : sql;
        return (inspected != null && !this.columns.isEmpty()) ? fenced(inspected) : inspected;
    }

    private String fenced(String sql) {
        // Matched on a copy with comments and literals blanked out, so neither can hide or fake a keyword.
        String code = blankCommentsAndLiterals(sql);
        Matcher write = WRITE.matcher(code);
        if (!write.lookingAt()) {
            return sql;
        }
        String table = normalise(sql.substring(write.start(1), write.end(1)));
        String column = this.columns.get(table);
        // Only an exclusive lock's token fences a write; a shared lock inside it must not lend its own.
        Optional<Fence> fence = FencingContext.writeFence();
        if (column == null || fence.isEmpty()) {
            return sql;
        }
        String condition = column + "<=" + fence.get().token();
        Matcher where = WHERE.matcher(code);
        String fenced;
        if (!where.find()) {
            fenced = sql + " where " + condition;
        } else {
            int start = where.start();
            int end = where.end();
            if (where.find()) {
                // A subquery: the outer WHERE cannot be told apart reliably, so refuse, loudly.
                throw new LockException("Cannot add the fencing condition to this statement on '" + table
                        + "' (more than one WHERE): " + sql + ". Write it with FencedWrites.condition(\"" + column
                        + "\") instead.");
            }
            fenced = sql.substring(0, start) + " where (" + sql.substring(end) + ") and " + condition;
        }
        String sent = FencedRowComment.append(fenced, table, column);
        logger.debug("{}", sent);
        return sent;
    }

    /**
     * {@code sql} with every comment and quoted literal replaced by spaces of the same length, so
     * positions in it are positions in {@code sql}.
     */
    static String blankCommentsAndLiterals(String sql) {
        char[] code = sql.toCharArray();
        int i = 0;
        while (i < code.length) {
            int end = i;
            if (code[i] == '-' && i + 1 < code.length && code[i + 1] == '-') {
                end = sql.indexOf('\n', i);
                end = (end < 0) ? code.length : end;
            } else if (code[i] == '/' && i + 1 < code.length && code[i + 1] == '*') {
                end = sql.indexOf("*/", i + 2);
                end = (end < 0) ? code.length : end + 2;
            } else if (code[i] == '\'') {
                end = i + 1;
                while (end < code.length && !(code[end] == '\'' && (end + 1 >= code.length || code[end + 1] != '\''))) {
                    end += (code[end] == '\'') ? 2 : 1;
                }
                end = Math.min(end + 1, code.length);
            }
            if (end > i) {
                for (int j = i; j < end; j++) {
                    code[j] = ' ';
                }
                i = end;
            } else {
                i++;
            }
        }
        return new String(code);
    }

    private static String normalise(String table) {
        String name = table.substring(table.lastIndexOf('.') + 1);
        return name.replace("\"", "").replace("`", "").toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return "FencingStatementInspector" + this.columns
                + ((this.applicationInspector != null) ? " after " + this.applicationInspector : "");
    }
}
