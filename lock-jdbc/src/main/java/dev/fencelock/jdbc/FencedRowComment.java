package dev.fencelock.jdbc;

import org.jspecify.annotations.Nullable;

/**
 * The SQL comment that marks an {@code UPDATE} as row-fenced (its {@code WHERE} carries {@code
 * <token column> <= <token>}), so that {@link FencedDataSource}, which sees only the statement, can
 * turn "no row changed" into a {@link dev.fencelock.FencingTokenRejectedException}. JPA's row
 * fencing writes it; any hand-written update may carry it too.
 */
public final class FencedRowComment {

    private static final String PREFIX = " /* fencelock:fenced-row ";

    private static final String SUFFIX = " */";

    private FencedRowComment() {}

    /** {@code sql} followed by the comment naming the fenced {@code table.column}. */
    public static String append(String sql, String table, String column) {
        return sql + PREFIX + table + "." + column + SUFFIX;
    }

    /**
     * The {@code table.column} a statement is row-fenced on, or {@code null} for any other
     * statement.
     */
    public static @Nullable String fencedRow(String sql) {
        // Not only at the end: an inspector that runs later (tracing tags) may append comments of its own.
        int start = sql.lastIndexOf(PREFIX);
        if (start < 0) {
            return null;
        }
        int end = sql.indexOf(SUFFIX, start + PREFIX.length());
        return (end < 0) ? null : sql.substring(start + PREFIX.length(), end);
    }
}
