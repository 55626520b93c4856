package dev.fencelock.jdbc;

/**
 * Reads SQL text as H2's tokenizer does ({@code org.h2.command.Tokenizer}): {@code --} and
 * {@code //} comments end at a line feed or a carriage return, block comments nest, strings take
 * doubled quotes and no backslash escapes, {@code "…"} and {@code `…`} quote identifiers ({@code
 * […]} too in MSSQLServer mode), and {@code $$…$$} is a string where a token starts (after an
 * identifier, {@code $} is one of its characters).
 */
final class H2SqlScanner {

    private H2SqlScanner() {}

    /** @return whether the text ends outside any literal, comment and quoted identifier */
    static boolean scan(String sql, SqlText.Syntax syntax, SqlText.Collector out) {
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            char next = (i + 1 < n) ? sql.charAt(i + 1) : 0;
            if (out.inWord() && Character.isJavaIdentifierPart(c)) {
                out.wordChar(c); // an identifier goes on with any identifier part, '$' included
                i++;
            } else if ((c == '-' && next == '-') || (c == '/' && next == '/')) {
                i = lineEnd(sql, i + 2);
                out.separator();
            } else if (c == '/' && next == '*') {
                i = commentEnd(sql, i + 2);
                if (i < 0) {
                    return false;
                }
                out.separator();
            } else if (c == '\'' || c == '"' || c == '`') {
                i = PostgresSqlScanner.quoteEnd(sql, i, c, false);
                if (i < 0) {
                    return false;
                }
                out.token("'");
            } else if (c == '[' && syntax.quotesIdentifiers) {
                int end = sql.indexOf(']', i + 1);
                if (end < 0) {
                    return false;
                }
                i = end + 1;
                out.token("'");
            } else if (c == '$' && next == '$') {
                int end = sql.indexOf("$$", i + 2);
                if (end < 0) {
                    return false;
                }
                i = end + 2;
                out.token("'");
            } else if (c == ';') {
                out.endStatement();
                i++;
            } else if (c >= '0' && c <= '9') {
                i = numberEnd(sql, i, out);
            } else if (c != '$' && Character.isJavaIdentifierStart(c)) {
                out.wordChar(c);
                i++;
            } else {
                out.punctuation(c);
                i++;
            }
        }
        return true;
    }

    /** Reads a number as H2 does (digits, a fraction, an exponent, a type suffix) and returns the index after it. */
    private static int numberEnd(String sql, int from, SqlText.Collector out) {
        int i = from;
        while (i < sql.length() && (Character.isDigit(sql.charAt(i)) || sql.charAt(i) == '.')) {
            i++;
        }
        if (i + 1 < sql.length() && (sql.charAt(i) == 'E' || sql.charAt(i) == 'e')) {
            int exponent = i + 1;
            if (sql.charAt(exponent) == '+' || sql.charAt(exponent) == '-') {
                exponent++;
            }
            if (exponent < sql.length() && Character.isDigit(sql.charAt(exponent))) {
                i = exponent;
                while (i < sql.length() && Character.isDigit(sql.charAt(i))) {
                    i++;
                }
            }
        }
        if (i < sql.length() && (sql.charAt(i) == 'L' || sql.charAt(i) == 'l')) {
            i++;
        }
        out.token("0");
        return i;
    }

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
            if (sql.charAt(i) == '*' && sql.charAt(i + 1) == '/') {
                depth--;
                i += 2;
                if (depth == 0) {
                    return i;
                }
            } else if (sql.charAt(i) == '/' && sql.charAt(i + 1) == '*') {
                depth++;
                i += 2;
            } else {
                i++;
            }
        }
        return -1;
    }
}
