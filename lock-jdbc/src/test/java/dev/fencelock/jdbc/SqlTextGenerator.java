package dev.fencelock.jdbc;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.IntFunction;

/**
 * Random SQL texts for the differential tests: statements that write a numbered mark row, end or
 * steer the transaction, or do both, joined by semicolons, and lexical traps between and inside
 * them. A trap is an opening and a closing sequence around more statements — a quote, a comment, a
 * dollar quote, an executable comment — chosen from forms that the servers (and their settings)
 * read differently: for one reader the statements inside are hidden, for another they run. Lone
 * fragments (an unbalanced quote, a backslash, {@code --x}, {@code x$$}) and every line end
 * ({@code \n}, {@code \r}, {@code \r\n}) are mixed in too.
 */
final class SqlTextGenerator {

    /**
     * Traps: an opening, an early closing and a late one, with statements between the two closings.
     * Some readers close at the early one and run the statements, others at the late one and skip
     * them. Those that need an expression (quotes) follow a {@code SELECT}.
     */
    private static final String[][] TRAPS = {
        // Line comments: ended by a carriage return, a line feed, or (MariaDB) no comment at all.
        {"-- x", "\r", "\n"},
        {"--x", "\r", "\n"},
        {"--1", "", "\n"},
        {"--", "\t", "\n"},
        {"--", "", "\n"},
        {"#", "\r", "\n"},
        {"# x", "", "\n"},
        {"// x", "\r", "\n"},
        {"//", "", "\n"},
        {"--\u000B", "", "\n"},
        // Block comments: nested or not, executable and versioned (MariaDB), a skipped one with a comment inside.
        {"/*", "*/", "*/"},
        {"/* /*", "*/", "*/"},
        {"/*!", "", "*/"},
        {"/*!50000", "", "*/"},
        {"/*!999999", "", "*/"},
        {"/*!50700", "", "*/"},
        {"/*M!100000", "", "*/"},
        {"/*M!", "", "*/"},
        {"/*!999999 /*", "*/", "*/"},
        {"/*!99999 /* x", "*/", "*/"},
        // Quotes: backslash escapes or not, E'' and its prefix rules, identifiers, dollar quotes and where they start.
        {"SELECT 'x\\'", "", "SELECT '\\'"},
        {"SELECT 'x", "\\'", "'"},
        {"SELECT E'x\\'", "", "SELECT E'\\'"},
        {"SELECT 'a'E'x\\'", "", "SELECT '\\'"},
        {"SELECT \"x\\\"", "", "SELECT \"\\\""},
        {"SELECT 1 AS `x", "", "`"},
        {"SELECT 1 AS [x", "", "]"},
        {"SELECT $$x", "", "$$"},
        {"SELECT $a$x", "", "$a$"},
        {"SELECT 1$a$", "", "$a$"},
        {"SELECT 1 AS x$$", "", "$$"},
        {"SELECT 1 AS a$b$", "", "$b$"},
        {"SELECT U&'x\\'", "", "SELECT '\\'"},
        {"SELECT N'x\\'", "", "SELECT '\\'"},
        {"SELECT ('", "", "')"},
    };

    private static final String[] FRAGMENTS = {
        "'", "\"", "`", "\\", "\\'", "E'", "$$", "$a$", "x$$", "/*", "*/", "--x", "--", "#", "//", "(", ")", "[", "]",
        "\r", "\n", "\r\n", "\t", "\f", "\u000B", "\u00A0", "0x", "?", "@", "{", "}",
    };

    private static final String[] SPACES = {"", " ", " ", "\n", "\r\n", "\r", "\t", "/* c */", "-- c\n", "# c\n"};

    private final SqlText.Family family;

    private final IntFunction<String> write;

    private final Random random;

    private int mark;

    /** Marks written inside a block ({@code DO $$ … $$}): no reading of the text shows them as statements. */
    private final java.util.Set<Integer> hidden = new java.util.HashSet<>();

    /**
     * @param write the statement that writes mark row {@code k} and, where the database lets a
     *     statement say so, the transaction it ran in
     */
    SqlTextGenerator(SqlText.Family family, IntFunction<String> write, long seed) {
        this.family = family;
        this.write = write;
        this.random = new Random(seed);
    }

    /** The next text: 1 to 5 items joined by separators; two in five plain statements only. */
    String next() {
        StringBuilder text = new StringBuilder();
        boolean plain = this.random.nextInt(5) < 2;
        int items = 1 + this.random.nextInt(5);
        for (int i = 0; i < items; i++) {
            if (i > 0) {
                text.append(plain ? SPACES[this.random.nextInt(SPACES.length)] + ";" : separator());
            }
            text.append(plain ? statement() : item(2));
        }
        if (this.random.nextInt(4) == 0) {
            text.append(separator());
        }
        return text.toString();
    }

    private String item(int depth) {
        int kind = this.random.nextInt(20);
        if (kind < 8 || depth == 0) {
            return statement();
        }
        if (kind < 17) {
            return trap(depth);
        }
        if (kind < 19) {
            return statement() + " " + trap(depth);
        }
        return FRAGMENTS[this.random.nextInt(FRAGMENTS.length)] + statement();
    }

    /** An opening and an early closing, statements on one line, and (mostly) the late closing. */
    private String trap(int depth) {
        String[] trap = TRAPS[this.random.nextInt(TRAPS.length)];
        StringBuilder inside = new StringBuilder(" ; ");
        int items = 1 + this.random.nextInt(3);
        for (int i = 0; i < items; i++) {
            inside.append(item(depth - 1)).append(this.random.nextBoolean() ? " ; " : "\t;");
        }
        String close = (this.random.nextInt(8) == 0) ? "" : trap[2];
        // After an expression, "--1" is minus minus one for MariaDB rather than a comment.
        String before = (!trap[0].startsWith("SELECT") && this.random.nextBoolean()) ? "SELECT 1 " : "";
        return before + trap[0] + trap[1] + inside + close;
    }

    private String separator() {
        int kind = this.random.nextInt(10);
        String space = SPACES[this.random.nextInt(SPACES.length)];
        if (kind < 8) {
            return space + ";" + SPACES[this.random.nextInt(SPACES.length)];
        }
        return (kind == 8) ? space : FRAGMENTS[this.random.nextInt(FRAGMENTS.length)];
    }

    /** Whether mark {@code k} was written from inside a block, where no reading sees it as a statement. */
    boolean isHidden(int k) {
        return this.hidden.contains(k);
    }

    private String hiddenWrite() {
        this.hidden.add(++this.mark);
        return this.write.apply(this.mark);
    }

    private String statement() {
        // Writes weigh as much as all the rest: they are what a reading mistake would let through.
        if (this.random.nextBoolean()) {
            return this.write.apply(++this.mark);
        }
        List<String> choices = new ArrayList<>(List.of(
                "COMMIT",
                "ROLLBACK",
                "commit work",
                "BEGIN",
                "START TRANSACTION",
                "SAVEPOINT s1",
                "ROLLBACK TO SAVEPOINT s1",
                "RELEASE SAVEPOINT s1",
                "SELECT 1",
                "SELECT 'a;b'",
                "SET TRANSACTION ISOLATION LEVEL READ COMMITTED",
                "CREATE TABLE IF NOT EXISTS fz_ddl (a INT)"));
        switch (this.family) {
            case POSTGRESQL ->
                choices.addAll(List.of(
                        "END",
                        "ABORT",
                        "COMMIT AND CHAIN",
                        "SET LOCAL statement_timeout = 0",
                        "TRUNCATE fz_scratch",
                        "DO $$ BEGIN " + hiddenWrite() + "; END $$",
                        "DO $x$ BEGIN PERFORM 1; END $x$"));
            case MARIADB ->
                choices.addAll(List.of(
                        "SET autocommit = 1",
                        "SET @@autocommit = 0",
                        "SET @v = 1",
                        "TRUNCATE TABLE fz_scratch",
                        "SET STATEMENT max_statement_time = 5 FOR " + this.write.apply(++this.mark),
                        "DO 1",
                        "LOCK TABLES fz_scratch READ",
                        "UNLOCK TABLES"));
            case H2 ->
                choices.addAll(List.of(
                        "SET AUTOCOMMIT TRUE",
                        "SET AUTOCOMMIT FALSE",
                        "SET @v = 1",
                        "TRUNCATE TABLE fz_scratch",
                        "SET LOCK_TIMEOUT 5000"));
            default -> {}
        }
        return choices.get(this.random.nextInt(choices.size()));
    }
}
