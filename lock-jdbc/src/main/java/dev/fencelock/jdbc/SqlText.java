package dev.fencelock.jdbc;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits SQL text into its top-level statements and reads the first words of each, so the fenced
 * connection can tell which statements end a transaction. It knows only what it must to find
 * statement boundaries reliably: string literals, quoted identifiers, comments and PostgreSQL's
 * dollar quotes, in each dialect's flavour. It does not parse SQL.
 */
final class SqlText {

    /** The lexical rules of one database family. */
    enum Syntax {
        /** Standard strings ({@code ''} escapes), {@code E'…'} with backslashes, nested comments, dollar quotes. */
        POSTGRESQL(false, false, true, true),
        /** Backslash escapes in strings, {@code #} comments, backticks, executable {@code /*! … *}{@code /} comments. */
        MARIADB(true, true, false, false),
        /** MariaDB with {@code NO_BACKSLASH_ESCAPES}. */
        MARIADB_NO_BACKSLASH_ESCAPES(false, true, false, false),
        /** Standard strings and {@code //} comments. */
        H2(false, false, false, false);

        final boolean backslashEscapes;

        final boolean mysql;

        final boolean nestedComments;

        final boolean dollarQuotes;

        Syntax(boolean backslashEscapes, boolean mysql, boolean nestedComments, boolean dollarQuotes) {
            this.backslashEscapes = backslashEscapes;
            this.mysql = mysql;
            this.nestedComments = nestedComments;
            this.dollarQuotes = dollarQuotes;
        }
    }

    /**
     * The statements of one SQL text.
     *
     * @param heads the first words of each non-empty statement, upper case, single-spaced
     * @param complete false when the text ends inside a literal or comment, so its statements
     *     could not be told apart with certainty
     */
    record Statements(List<String> heads, boolean complete) {}

    private SqlText() {}

    static Statements split(String sql, Syntax syntax) {
        Splitter splitter = new Splitter();
        int executableComments = 0;
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            char next = (i + 1 < n) ? sql.charAt(i + 1) : 0;
            int skipTo = -1;
            if ((c == '-' && next == '-')
                    || (c == '#' && syntax.mysql)
                    || (c == '/' && next == '/' && syntax == Syntax.H2)) {
                skipTo = lineEnd(sql, i);
            } else if (c == '/' && next == '*') {
                if (syntax.mysql && (sql.startsWith("/*!", i) || sql.startsWith("/*M!", i))) {
                    // MariaDB runs what an executable comment holds: read it as SQL.
                    splitter.endWord();
                    i = skipVersion(sql, i + (sql.charAt(i + 2) == '!' ? 3 : 4));
                    executableComments++;
                    continue;
                }
                skipTo = commentEnd(sql, i, syntax.nestedComments);
            } else if (c == '*' && next == '/' && executableComments > 0) {
                executableComments--;
                skipTo = i + 2;
            } else if (c == '\'') {
                skipTo = quotedEnd(sql, i, '\'', syntax.backslashEscapes || isEscapeStringPrefix(sql, i, syntax));
            } else if (c == '"') {
                skipTo = quotedEnd(sql, i, '"', syntax.backslashEscapes);
            } else if (c == '`' && syntax.mysql) {
                skipTo = quotedEnd(sql, i, '`', false);
            } else if (c == '$' && syntax.dollarQuotes && !splitter.inWord()) {
                skipTo = dollarQuotedEnd(sql, i);
            }
            if (skipTo == Integer.MAX_VALUE) {
                return new Statements(splitter.finish(), false);
            }
            if (skipTo >= 0) {
                // Literals and comments separate words and are never part of one.
                splitter.endWord();
                i = skipTo;
            } else if (c == ';') {
                splitter.endStatement();
                i++;
            } else {
                splitter.add(c);
                i++;
            }
        }
        return new Statements(splitter.finish(), executableComments == 0);
    }

    /** Collects the first words of each statement. */
    private static final class Splitter {

        /** Enough for {@code PREPARE TRANSACTION} and for {@code SET a = 1, autocommit = 1}. */
        private static final int HEAD_WORDS = 16;

        private final List<String> heads = new ArrayList<>();

        private final List<String> words = new ArrayList<>();

        private final StringBuilder word = new StringBuilder();

        boolean inWord() {
            return this.word.length() > 0;
        }

        void add(char c) {
            if (Character.isLetterOrDigit(c) || c == '_' || c == '@') {
                this.word.append(Character.toUpperCase(c));
            } else {
                endWord();
            }
        }

        void endWord() {
            if (this.word.length() > 0 && this.words.size() < HEAD_WORDS) {
                this.words.add(this.word.toString());
            }
            this.word.setLength(0);
        }

        void endStatement() {
            endWord();
            if (!this.words.isEmpty()) {
                this.heads.add(String.join(" ", this.words));
            }
            this.words.clear();
        }

        List<String> finish() {
            endStatement();
            return this.heads;
        }
    }

    private static boolean isEscapeStringPrefix(String sql, int quote, Syntax syntax) {
        if (syntax != Syntax.POSTGRESQL || quote == 0) {
            return false;
        }
        char prefix = sql.charAt(quote - 1);
        boolean standalone =
                quote < 2 || !Character.isLetterOrDigit(sql.charAt(quote - 2)) && sql.charAt(quote - 2) != '_';
        return (prefix == 'E' || prefix == 'e') && standalone;
    }

    private static int lineEnd(String sql, int from) {
        int end = sql.indexOf('\n', from);
        return (end < 0) ? sql.length() : end + 1;
    }

    /** The index after the comment starting at {@code from}, or MAX_VALUE when it never ends. */
    private static int commentEnd(String sql, int from, boolean nested) {
        int depth = 0;
        int i = from;
        while (i + 1 < sql.length()) {
            if (sql.charAt(i) == '/' && sql.charAt(i + 1) == '*') {
                depth = nested ? depth + 1 : 1;
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
        return Integer.MAX_VALUE;
    }

    /** The index after the literal opened by {@code quote} at {@code from}, or MAX_VALUE when it never ends. */
    private static int quotedEnd(String sql, int from, char quote, boolean backslashEscapes) {
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
        return Integer.MAX_VALUE;
    }

    /** The index after a {@code $tag$…$tag$} literal at {@code from}; -1 when {@code $} opens none (e.g. {@code $1}). */
    private static int dollarQuotedEnd(String sql, int from) {
        int i = from + 1;
        while (i < sql.length()
                && (Character.isLetter(sql.charAt(i))
                        || sql.charAt(i) == '_'
                        || (i > from + 1 && Character.isDigit(sql.charAt(i))))) {
            i++;
        }
        if (i >= sql.length() || sql.charAt(i) != '$') {
            return -1;
        }
        String tag = sql.substring(from, i + 1);
        int end = sql.indexOf(tag, i + 1);
        return (end < 0) ? Integer.MAX_VALUE : end + tag.length();
    }

    private static int skipVersion(String sql, int from) {
        int i = from;
        while (i < sql.length() && Character.isDigit(sql.charAt(i))) {
            i++;
        }
        return i;
    }
}
