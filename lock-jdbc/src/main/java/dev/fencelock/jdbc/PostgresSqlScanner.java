package dev.fencelock.jdbc;

/**
 * Reads SQL text as PostgreSQL's server does (its lexer, {@code scan.l}) or as the PostgreSQL JDBC
 * driver does before it sends the statements one by one ({@code Parser.parseJdbcSql}). They differ
 * where it matters here:
 *
 * <ul>
 *   <li>the driver splits at {@code ;} only outside parentheses; the server splits everywhere;
 *   <li>the server reads {@code E'…'} with backslash escapes when {@code E} starts a token; the
 *       driver when the character before {@code E} ends an identifier, and never at the start of
 *       the text;
 *   <li>the server starts a dollar quote after a number ({@code 1$a$}); the driver does not.
 * </ul>
 *
 * Both end a {@code --} comment at a line feed or a carriage return, nest block comments, and
 * double quotes and dollar quotes alike.
 */
final class PostgresSqlScanner {

    private PostgresSqlScanner() {}

    /** @return whether the text ends outside any literal, comment and quoted identifier */
    static boolean scan(String sql, SqlText.Syntax syntax, SqlText.Collector out) {
        boolean driver = syntax.isDriver();
        int n = sql.length();
        int depth = 0;
        boolean inIdentifier = false;
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            char next = (i + 1 < n) ? sql.charAt(i + 1) : 0;
            if (c == '-' && next == '-') {
                i = lineEnd(sql, i + 2);
                out.separator();
                inIdentifier = false;
            } else if (c == '/' && next == '*') {
                i = commentEnd(sql, i + 2);
                if (i < 0) {
                    return false;
                }
                out.separator();
                inIdentifier = false;
            } else if (c == '\'') {
                boolean escapes =
                        syntax.backslashEscapes || (driver ? driverEscapeString(sql, i) : serverEscapeString(sql, i));
                i = quoteEnd(sql, i, '\'', escapes);
                if (i < 0) {
                    return false;
                }
                out.token("'");
                inIdentifier = false;
            } else if (c == '"') {
                i = quoteEnd(sql, i, '"', false);
                if (i < 0) {
                    return false;
                }
                out.token("'");
                inIdentifier = false;
            } else if (c == '$' && (driver ? !driverIdentifierChar(i > 0 ? sql.charAt(i - 1) : ' ') : !inIdentifier)) {
                int tagEnd = dollarTagEnd(sql, i);
                if (tagEnd < 0) {
                    out.separator(); // a parameter ($1) or an operator character
                    i++;
                    // "$1" and "$" never continue an identifier, but a number can follow.
                    inIdentifier = false;
                    continue;
                }
                String tag = sql.substring(i, tagEnd);
                int close = sql.indexOf(tag, tagEnd);
                if (close < 0) {
                    return false;
                }
                i = close + tag.length();
                out.token("'");
                inIdentifier = false;
            } else if (c == ';') {
                if (driver && depth != 0) { // the driver splits only where its count of parentheses is zero
                    out.separator();
                } else {
                    out.endStatement();
                }
                i++;
                inIdentifier = false;
            } else if (identifierStart(c)) {
                if (!out.inWord()) {
                    inIdentifier = true;
                }
                out.wordChar(c);
                i++;
            } else if (c >= '0' && c <= '9') {
                if (!out.inWord()) {
                    inIdentifier = false; // a number: a dollar quote may follow it on the server
                }
                out.wordChar(c);
                i++;
            } else if (c == '$') {
                // Inside an identifier, '$' is one of its characters.
                out.wordChar(c);
                i++;
            } else {
                if (c == '(') {
                    depth++;
                } else if (c == ')') {
                    depth--;
                }
                out.punctuation(c);
                inIdentifier = false;
                i++;
            }
        }
        return true;
    }

    /** The server: {@code E'} (or {@code e'}) where {@code E} is a token of its own. */
    private static boolean serverEscapeString(String sql, int quote) {
        if (quote == 0) {
            return false;
        }
        char prefix = sql.charAt(quote - 1);
        if (prefix != 'E' && prefix != 'e') {
            return false;
        }
        return quote == 1 || !serverIdentifierChar(sql.charAt(quote - 2));
    }

    /** The driver: {@code E'} whose {@code E} follows a character that ends an identifier, not at offset 1. */
    private static boolean driverEscapeString(String sql, int quote) {
        if (quote < 2) {
            return false;
        }
        char prefix = sql.charAt(quote - 1);
        return (prefix == 'E' || prefix == 'e') && driverTerminatesIdentifier(sql.charAt(quote - 2));
    }

    private static boolean driverTerminatesIdentifier(char c) {
        return c == '"'
                || c == ' '
                || c == '\t'
                || c == '\n'
                || c == '\r'
                || c == '\f'
                || ",()[].;:+-*/%^<>=~!@#&|`?".indexOf(c) >= 0;
    }

    private static boolean driverIdentifierChar(char c) {
        return identifierStart(c) || (c >= '0' && c <= '9') || c == '$';
    }

    private static boolean serverIdentifierChar(char c) {
        return driverIdentifierChar(c);
    }

    /** {@code [A-Za-z_]} or any character outside ASCII. */
    static boolean identifierStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c > 127;
    }

    /** The index after the opening {@code $tag$} at {@code from}, or -1 when none starts there. */
    private static int dollarTagEnd(String sql, int from) {
        int i = from + 1;
        if (i < sql.length() && identifierStart(sql.charAt(i))) {
            i++;
            while (i < sql.length()
                    && (identifierStart(sql.charAt(i)) || (sql.charAt(i) >= '0' && sql.charAt(i) <= '9'))) {
                i++;
            }
        }
        return (i < sql.length() && sql.charAt(i) == '$') ? i + 1 : -1;
    }

    /** After a line comment: the index of the character after its line feed or carriage return. */
    private static int lineEnd(String sql, int from) {
        for (int i = from; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\n' || c == '\r') {
                return i + 1;
            }
        }
        return sql.length();
    }

    /** The index after a nested block comment whose body starts at {@code from}; -1 when it never ends. */
    private static int commentEnd(String sql, int from) {
        int depth = 1;
        int i = from;
        while (i + 1 < sql.length()) {
            if (sql.charAt(i) == '/' && sql.charAt(i + 1) == '*') {
                depth++;
                i += 2;
            } else if (sql.charAt(i) == '*' && sql.charAt(i + 1) == '/') {
                depth--;
                i += 2;
                if (depth == 0) {
                    return i;
                }
            } else {
                i++;
            }
        }
        return -1;
    }

    /** The index after the quoted text opened at {@code from} (doubled quotes stay inside); -1 when it never ends. */
    static int quoteEnd(String sql, int from, char quote, boolean backslashEscapes) {
        int i = from + 1;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '\\' && backslashEscapes) {
                i += 2;
            } else if (c == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    i += 2;
                } else {
                    return i + 1;
                }
            } else {
                i++;
            }
        }
        return -1;
    }
}
