package dev.fencelock.jdbc;

/**
 * Reads SQL text as MariaDB's server does ({@code sql_lex.cc}); MariaDB Connector/J passes text on
 * as it is. What differs from the other databases:
 *
 * <ul>
 *   <li>{@code --} starts a comment only when a space or a control character (or the end of the
 *       text) follows it, so {@code 3 --1} is {@code 3 - -1}; {@code #} starts one too; both end
 *       at a line feed only, not at a carriage return;
 *   <li>{@code /*! … *}{@code /} and {@code /*M! … *}{@code /} hold code the server runs, unless a
 *       version number after the {@code !} is above the server's (MySQL's 5.7 to 9.x numbers are
 *       ignored unless marked {@code M}); a skipped one may hold one level of ordinary comment;
 *       ordinary block comments do not nest;
 *   <li>strings in {@code '} and (without {@code ANSI_QUOTES}) {@code "} take backslash escapes
 *       (without {@code NO_BACKSLASH_ESCAPES}) and doubled quotes; backticks quote identifiers.
 * </ul>
 */
final class MariaDbSqlScanner {

    private MariaDbSqlScanner() {}

    /** @return whether the text ends outside any literal, comment and quoted identifier */
    static boolean scan(String sql, SqlText.Syntax syntax, int serverVersion, SqlText.Collector out) {
        int n = sql.length();
        boolean inCodeComment = false;
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            char next = (i + 1 < n) ? sql.charAt(i + 1) : 0;
            char afterNext = (i + 2 < n) ? sql.charAt(i + 2) : 0;
            if (c == '#' || (c == '-' && next == '-' && (afterNext <= ' ' || afterNext == 0x7F))) {
                int end = sql.indexOf('\n', i);
                i = (end < 0) ? n : end + 1;
                out.separator();
            } else if (c == '/' && next == '*') {
                boolean marked = afterNext == 'M' && i + 3 < n && sql.charAt(i + 3) == '!';
                if (afterNext == '!' || marked) {
                    int from = i + (marked ? 4 : 3);
                    int digits = versionDigits(sql, from);
                    boolean runs = true;
                    if (digits > 0) {
                        long version = Long.parseLong(sql.substring(from, from + digits));
                        runs = serverVersion == 0
                                || (version <= serverVersion && (version < 50700 || version > 99999 || marked));
                    }
                    if (runs) {
                        inCodeComment = true;
                        i = from + digits;
                        out.separator();
                        continue;
                    }
                    i = commentEnd(sql, from + digits, true);
                } else {
                    i = commentEnd(sql, i + 2, false);
                }
                if (i < 0) {
                    return false;
                }
                out.separator();
            } else if (c == '*' && next == '/' && inCodeComment) {
                inCodeComment = false;
                i += 2;
                out.separator();
            } else if (c == '\'' || (c == '"' && !syntax.quotesIdentifiers)) {
                i = PostgresSqlScanner.quoteEnd(sql, i, c, syntax.backslashEscapes);
                if (i < 0) {
                    return false;
                }
                out.token("'");
            } else if (c == '`' || c == '"') {
                i = PostgresSqlScanner.quoteEnd(sql, i, c, false);
                if (i < 0) {
                    return false;
                }
                out.token("'");
            } else if (c == ';') {
                out.endStatement();
                i++;
            } else if (PostgresSqlScanner.identifierStart(c) || (c >= '0' && c <= '9') || c == '$') {
                out.wordChar(c);
                i++;
            } else {
                out.punctuation(c);
                i++;
            }
        }
        return !inCodeComment;
    }

    /** 5 or 6 when a version number follows an executable comment's {@code !}, else 0. */
    private static int versionDigits(String sql, int from) {
        int digits = 0;
        while (digits < 6 && from + digits < sql.length() && Character.isDigit(sql.charAt(from + digits))) {
            digits++;
        }
        return (digits >= 5) ? digits : 0;
    }

    /**
     * The index after a block comment whose body starts at {@code from}, or -1 when it never ends;
     * a skipped executable comment may hold one ordinary comment, whose end does not end it.
     */
    private static int commentEnd(String sql, int from, boolean oneNestedLevel) {
        int i = from;
        while (i < sql.length()) {
            char c = sql.charAt(i++);
            if (oneNestedLevel && c == '/' && i < sql.length() && sql.charAt(i) == '*') {
                int inner = commentEnd(sql, i + 1, false);
                if (inner < 0) {
                    return -1;
                }
                i = inner;
            } else if (c == '*' && i < sql.length() && sql.charAt(i) == '/') {
                return i + 1;
            }
        }
        return -1;
    }
}
