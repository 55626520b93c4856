package dev.fencelock.jdbc;

import dev.fencelock.jdbc.SqlText.Family;
import dev.fencelock.jdbc.SqlText.Statement;
import java.util.List;
import java.util.Set;

/**
 * What one statement is to the fence guard, recognised from its first tokens. An allow-list: only
 * forms listed here count as transaction control (no guard) or as staying inside the transaction;
 * every other statement is {@link #OTHER}, guarded and counted as a possible end.
 */
enum StatementKind {

    /** Commits, or may ({@code COMMIT}, {@code END}, {@code PREPARE TRANSACTION}). */
    COMMIT(TransactionBoundary.COMMIT, false, false),

    /** Rolls back, or undoes to a savepoint ({@code ROLLBACK}, {@code ABORT}). */
    ROLLBACK(TransactionBoundary.ROLLBACK, false, false),

    /** Steers the transaction without ending it or writing ({@code SAVEPOINT}, {@code SET TRANSACTION}, settings). */
    CONTROL(TransactionBoundary.NONE, false, false),

    /** Writes nothing but may end the transaction ({@code BEGIN}, {@code START TRANSACTION}, {@code SET autocommit}). */
    CONTROL_ENDING(TransactionBoundary.COMMIT, false, false),

    /** A recognised read; guarded under an exclusive lock like anything else. */
    READ(TransactionBoundary.NONE, true, true),

    /** A recognised statement that may write and cannot end the transaction. */
    WRITE(TransactionBoundary.NONE, true, false),

    /** Runs code that may commit and go on writing inside the one statement (MariaDB's and H2's procedures). */
    PROCEDURE(TransactionBoundary.COMMIT, true, false),

    /** Changes how the server reads later text (MariaDB's client character set): never under a fence. */
    REFUSED(TransactionBoundary.COMMIT, true, false),

    /** Anything not recognised in full: guarded, and a possible end of the transaction. */
    OTHER(TransactionBoundary.COMMIT, true, false);

    private static final Set<String> READS = Set.of("SELECT", "VALUES", "TABLE", "SHOW", "DESCRIBE", "DESC", "HELP");

    private static final Set<String> WRITES = Set.of("INSERT", "UPDATE", "DELETE", "MERGE");

    /** Words that make a read statement write (a writing CTE, {@code SELECT … INTO}). */
    private static final Set<String> WRITING_WORDS =
            Set.of("INSERT", "UPDATE", "DELETE", "MERGE", "REPLACE", "INTO", "CALL", "COPY");

    /** MariaDB settings that change how the server reads the bytes of later text. */
    private static final Set<String> CHARACTER_SETS =
            Set.of("NAMES", "CHARACTER", "CHARSET", "CHARACTER_SET_CLIENT", "CHARACTER_SET_CONNECTION");

    private final TransactionBoundary end;

    private final boolean guarded;

    private final boolean reads;

    StatementKind(TransactionBoundary end, boolean guarded, boolean reads) {
        this.end = end;
        this.guarded = guarded;
        this.reads = reads;
    }

    TransactionBoundary end() {
        return this.end;
    }

    /** Whether the guard must run before it. */
    boolean guarded() {
        return this.guarded;
    }

    /** Whether it runs unguarded under nothing but shared locks: recognised reads and transaction control. */
    boolean reads() {
        return this.reads || !this.guarded;
    }

    static StatementKind of(Statement statement, Family family) {
        List<String> tokens = statement.tokens();
        int at = 0;
        // JDBC escapes ({call p()}, {? = call f()}) and parenthesised queries.
        while (at < tokens.size()
                && (tokens.get(at).equals("{")
                        || tokens.get(at).equals("(")
                        || tokens.get(at).equals("="))) {
            at++;
        }
        if (at >= tokens.size()) {
            return OTHER;
        }
        String first = tokens.get(at);
        String second = statement.token(at + 1);
        switch (first) {
            case "COMMIT":
            case "ROLLBACK":
                // COMMIT PREPARED and ROLLBACK PREPARED end another, prepared transaction.
                if (second.equals("PREPARED")) {
                    return CONTROL;
                }
                return first.equals("COMMIT") ? COMMIT : ROLLBACK;
            case "END":
                return COMMIT;
            case "ABORT":
                return ROLLBACK;
            case "PREPARE":
                return (second.equals("TRANSACTION") || second.equals("COMMIT")) ? COMMIT : OTHER;
            case "BEGIN":
                // MariaDB's BEGIN NOT ATOMIC … END is a block of code, like a procedure.
                return (second.equals("NOT") && family != Family.POSTGRESQL) ? PROCEDURE : CONTROL_ENDING;
            case "START":
                return second.equals("TRANSACTION") ? CONTROL_ENDING : OTHER;
            case "XA":
                return CONTROL_ENDING;
            case "SAVEPOINT":
            case "RELEASE":
                return CONTROL;
            case "LOCK":
            case "UNLOCK":
                // MariaDB's table locks commit implicitly and write nothing; PostgreSQL's stay in the transaction.
                if (family == Family.POSTGRESQL && first.equals("LOCK")) {
                    return CONTROL;
                }
                return (family == Family.MARIADB && (second.equals("TABLE") || second.equals("TABLES")))
                        ? CONTROL_ENDING
                        : OTHER;
            case "SET":
                return setting(statement, at, family);
            case "CALL":
            case "EXECUTE":
            case "EXEC":
                // A PostgreSQL procedure cannot commit inside a transaction block; a prepared statement is DML.
                return (family == Family.POSTGRESQL) ? WRITE : PROCEDURE;
            case "DO":
                // DO runs a block (PostgreSQL) or expressions (MariaDB); neither may commit in a transaction.
                return (family == Family.POSTGRESQL || family == Family.MARIADB) ? WRITE : OTHER;
            case "EXPLAIN":
                return statement.has("ANALYZE") || statement.has("ANALYSE") ? WRITE : read(statement);
            case "WITH":
                return read(statement);
            case "REPLACE":
                return (family == Family.MARIADB) ? WRITE : OTHER;
            default:
                if (READS.contains(first)) {
                    return read(statement);
                }
                return WRITES.contains(first) ? WRITE : OTHER;
        }
    }

    /** A read, unless a word in it makes it write; a statement cut off at the token limit may hide one. */
    private static StatementKind read(Statement statement) {
        if (statement.tokens().size() >= SqlText.MAX_TOKENS) {
            return WRITE;
        }
        for (String token : statement.tokens()) {
            if (WRITING_WORDS.contains(token)) {
                return WRITE;
            }
        }
        return READ;
    }

    private static StatementKind setting(Statement statement, int at, Family family) {
        String second = statement.token(at + 1);
        String third = statement.token(at + 2);
        if (second.equals("TRANSACTION")
                || ((second.equals("SESSION") || second.equals("LOCAL") || second.equals("GLOBAL"))
                        && third.equals("TRANSACTION"))
                || (second.equals("SESSION") && third.equals("CHARACTERISTICS"))) {
            // H2 commits before changing transaction characteristics (found by the differential tests).
            return (family == Family.H2) ? CONTROL_ENDING : CONTROL;
        }
        switch (family) {
            case POSTGRESQL:
                if (statement.has("AUTOCOMMIT")) {
                    return CONTROL_ENDING;
                }
                // PostgreSQL's SET takes constants only and cannot write or end a transaction. Those
                // below change where unqualified names resolve, who the session is, or run deferred triggers.
                for (String word : List.of("SEARCH_PATH", "SCHEMA", "ROLE", "AUTHORIZATION", "CONSTRAINTS")) {
                    if (statement.has(word)) {
                        return OTHER;
                    }
                }
                return CONTROL;
            case MARIADB:
                if (second.equals("STATEMENT")) {
                    return statementAfterFor(statement, at, family);
                }
                for (String token : statement.tokens()) {
                    if (CHARACTER_SETS.contains(token)) {
                        return REFUSED;
                    }
                }
                return plainAssignment(statement, Set.of("PASSWORD", "ROLE", "DEFAULT"));
            case H2:
                // Most of H2's own SET commands commit; only these are known not to.
                if (second.equals("@") || second.equals("LOCK_TIMEOUT") || second.equals("QUERY_TIMEOUT")) {
                    return plainAssignment(statement, Set.of());
                }
                return statement.has("AUTOCOMMIT") && !statement.has("(") ? CONTROL_ENDING : OTHER;
            default:
                return statement.has("AUTOCOMMIT") && !statement.has("(") ? CONTROL_ENDING : OTHER;
        }
    }

    /** A setting of constants: {@code (} would call a function or run a query, which may write. */
    private static StatementKind plainAssignment(Statement statement, Set<String> otherwise) {
        if (statement.has("(") || statement.tokens().size() >= SqlText.MAX_TOKENS) {
            return OTHER;
        }
        for (String token : statement.tokens()) {
            if (otherwise.contains(token)) {
                return OTHER;
            }
        }
        return statement.has("AUTOCOMMIT") ? CONTROL_ENDING : CONTROL;
    }

    /** MariaDB's {@code SET STATEMENT var = value[, …] FOR <statement>}: what the statement after {@code FOR} is. */
    private static StatementKind statementAfterFor(Statement statement, int at, Family family) {
        List<String> tokens = statement.tokens();
        int index = tokens.indexOf("FOR");
        if (index < 0 || index == tokens.size() - 1) {
            return PROCEDURE; // cut off before FOR: what runs cannot be told
        }
        for (int i = at; i < index; i++) {
            if (tokens.get(i).equals("(")) {
                return OTHER; // a value computed by a function
            }
        }
        StatementKind inner = of(new Statement(tokens.subList(index + 1, tokens.size())), family);
        return (inner == CONTROL || inner == CONTROL_ENDING || inner == COMMIT || inner == ROLLBACK) ? OTHER : inner;
    }

    /** The message for a {@link #REFUSED} statement. */
    static String refusal(Statement statement) {
        return "it changes the character set in which the server reads later SQL, which the fence guard"
                + " reads as UTF-8; set the character set in the connection's URL instead";
    }
}
