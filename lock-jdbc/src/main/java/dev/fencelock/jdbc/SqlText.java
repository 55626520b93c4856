package dev.fencelock.jdbc;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits SQL text into its statements as one reader of it does, and keeps the first tokens of
 * each, so the fenced connection can tell what each statement does to the transaction. A reader
 * is a server with its lexical settings, or a driver that splits text itself before the server
 * sees it ({@link Syntax}). The readers disagree on comments, quotes and escapes, so the connection
 * reads every text with every reader its database may use and believes the worst reading; the
 * differential tests run the same texts on the real servers to keep these rules honest.
 *
 * <p>It tokenizes only as far as statement boundaries and statement kinds need: literals,
 * comments and quoted identifiers are skipped, words are kept in upper case, and a few punctuation
 * marks are kept because they change what a statement does ({@code (} of a function call, {@code
 * =} and {@code @} of an assignment). A literal becomes the token {@code '}, a number {@code 0}.
 */
final class SqlText {

    /** Tokens kept per statement; enough to find {@code FOR} in {@code SET STATEMENT … FOR}. */
    static final int MAX_TOKENS = 64;

    /** A reader of SQL text: a server with given lexical settings, or a driver that splits text itself. */
    enum Syntax {
        /** PostgreSQL's server with {@code standard_conforming_strings = on}: {@code E'…'} alone has backslash escapes. */
        POSTGRESQL(Family.POSTGRESQL, false, false),
        /** PostgreSQL's server with {@code standard_conforming_strings = off}: every string has backslash escapes. */
        POSTGRESQL_BACKSLASH_STRINGS(Family.POSTGRESQL, true, false),
        /** The PostgreSQL JDBC driver, which splits text at {@code ;} outside parentheses before the server parses it. */
        POSTGRESQL_DRIVER(Family.POSTGRESQL, false, false),
        /** The PostgreSQL JDBC driver on a connection with {@code standard_conforming_strings = off}. */
        POSTGRESQL_DRIVER_BACKSLASH_STRINGS(Family.POSTGRESQL, true, false),
        /** MariaDB's default {@code sql_mode}: {@code "…"} is a string, backslashes escape in strings. */
        MARIADB(Family.MARIADB, true, false),
        /** MariaDB with {@code NO_BACKSLASH_ESCAPES}. */
        MARIADB_NO_BACKSLASH_ESCAPES(Family.MARIADB, false, false),
        /** MariaDB with {@code ANSI_QUOTES}: {@code "…"} is an identifier. */
        MARIADB_ANSI_QUOTES(Family.MARIADB, true, true),
        /** MariaDB with {@code ANSI_QUOTES} and {@code NO_BACKSLASH_ESCAPES}. */
        MARIADB_ANSI_QUOTES_NO_BACKSLASH_ESCAPES(Family.MARIADB, false, true),
        /** H2 in its regular mode. */
        H2(Family.H2, false, false),
        /** H2 in a mode that reads {@code […]} as a quoted identifier (MSSQLServer). */
        H2_SQUARE_BRACKETS(Family.H2, false, true);

        final Family family;

        final boolean backslashEscapes;

        /** MariaDB: {@code "} quotes identifiers; H2: {@code [} quotes identifiers. */
        final boolean quotesIdentifiers;

        Syntax(Family family, boolean backslashEscapes, boolean quotesIdentifiers) {
            this.family = family;
            this.backslashEscapes = backslashEscapes;
            this.quotesIdentifiers = quotesIdentifiers;
        }

        boolean isDriver() {
            return this == POSTGRESQL_DRIVER || this == POSTGRESQL_DRIVER_BACKSLASH_STRINGS;
        }

        /** Every reader of a database family: the guard cannot know which settings a session has. */
        static List<Syntax> of(Family family) {
            List<Syntax> syntaxes = new ArrayList<>(4);
            for (Syntax syntax : values()) {
                if (family == Family.UNKNOWN || syntax.family == family) {
                    syntaxes.add(syntax);
                }
            }
            return syntaxes;
        }
    }

    /** The database families whose statements and lexical rules the guard knows. */
    enum Family {
        POSTGRESQL,
        MARIADB,
        H2,
        /** A database without a fence dialect: every reader and the most careful statement rules. */
        UNKNOWN
    }

    /** One statement: its first {@link #MAX_TOKENS} tokens. */
    record Statement(List<String> tokens) {

        String first() {
            return this.tokens.get(0);
        }

        String token(int index) {
            return (index < this.tokens.size()) ? this.tokens.get(index) : "";
        }

        boolean has(String token) {
            return this.tokens.contains(token);
        }

        /** Whether the tokens from {@code from} on start with {@code words}. */
        boolean startsWith(int from, String... words) {
            for (int i = 0; i < words.length; i++) {
                if (!token(from + i).equals(words[i])) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * The statements of one text as one reader splits it.
     *
     * @param complete false when the text ends inside a literal, a comment or a quoted identifier:
     *     the reader refuses such text, but where it stops cannot be known for certain
     */
    record Statements(List<Statement> statements, boolean complete) {}

    private SqlText() {}

    /**
     * Splits {@code sql} as {@code syntax} reads it.
     *
     * @param mariaDbVersion the MariaDB server's version as {@code 101119} for 10.11.19, which
     *     decides whether a versioned {@code /*!NNNNN … *}{@code /} comment runs; 0 reads every
     *     such comment as code, -1 none
     */
    static Statements split(String sql, Syntax syntax, int mariaDbVersion) {
        Collector collector = new Collector();
        boolean complete = switch (syntax.family) {
            case POSTGRESQL -> PostgresSqlScanner.scan(sql, syntax, collector);
            case MARIADB -> MariaDbSqlScanner.scan(sql, syntax, mariaDbVersion, collector);
            case H2 -> H2SqlScanner.scan(sql, syntax, collector);
            case UNKNOWN -> throw new IllegalArgumentException("no reader for " + syntax);
        };
        return new Statements(collector.finish(), complete);
    }

    /** Collects tokens into statements as a scanner finds them. */
    static final class Collector {

        private final List<Statement> statements = new ArrayList<>(2);

        private List<String> tokens = new ArrayList<>();

        private final StringBuilder word = new StringBuilder();

        /** Adds a character of a word (an identifier, a keyword, a number); upper case. */
        void wordChar(int codePoint) {
            this.word.appendCodePoint(Character.toUpperCase(codePoint));
        }

        /** Ends the word being read, if any. */
        void endWord() {
            if (this.word.length() > 0) {
                add(Character.isDigit(this.word.charAt(0)) ? "0" : this.word.toString());
                this.word.setLength(0);
            }
        }

        boolean inWord() {
            return this.word.length() > 0;
        }

        /** A token other than a word: a literal ({@code '}), or punctuation the statement rules use. */
        void token(String token) {
            endWord();
            add(token);
        }

        /** A character that is neither part of a word nor a token the rules use: it only ends a word. */
        void separator() {
            endWord();
        }

        void endStatement() {
            endWord();
            if (!this.tokens.isEmpty()) {
                this.statements.add(new Statement(List.copyOf(this.tokens)));
                this.tokens = new ArrayList<>();
            }
        }

        List<Statement> finish() {
            endStatement();
            return this.statements;
        }

        private void add(String token) {
            if (this.tokens.size() < MAX_TOKENS) {
                this.tokens.add(token);
            }
        }

        /** Punctuation the statement rules look at; anything else only separates words. */
        void punctuation(char c) {
            if (c == '(' || c == '=' || c == '@' || c == '{') {
                token(String.valueOf(c));
            } else {
                separator();
            }
        }
    }
}
