package dev.fencelock.jdbc;

import java.util.List;
import java.util.Set;

/**
 * What one SQL statement does to the transaction around it, as far as the fence guard cares: the
 * guard's check holds until the transaction ends, so every statement that may end it must be known.
 * When in doubt, a statement counts as one that may commit: the guard then runs once more, which is
 * cheap, whereas trusting a check past a commit would let writes land unfenced.
 */
enum TransactionBoundary {

    /** Stays inside the current transaction. */
    NONE,

    /** Ends it by rolling back (the statement's own writes never become visible). */
    ROLLBACK,

    /** Ends it by committing, or may do so (an implicit commit, a procedure, a prepared statement). */
    COMMIT;

    /**
     * Statements before which MariaDB and MySQL commit implicitly (DDL, table locks, maintenance),
     * or that H2 commits (DDL). PostgreSQL keeps most of them transactional; treating them as
     * commits there only costs one more guard.
     */
    private static final Set<String> IMPLICIT_COMMIT = Set.of(
            "ALTER",
            "CREATE",
            "DROP",
            "RENAME",
            "TRUNCATE",
            "GRANT",
            "REVOKE",
            "LOCK",
            "UNLOCK",
            "ANALYZE",
            "OPTIMIZE",
            "REPAIR",
            "CHECK",
            "CACHE",
            "FLUSH",
            "LOAD",
            "RESET",
            "INSTALL",
            "UNINSTALL",
            "CHANGE",
            "STOP",
            "BACKUP",
            "PURGE");

    /**
     * Statements whose effect on the transaction cannot be seen from their text: a procedure may
     * commit; a prepared statement may be a {@code COMMIT}.
     */
    private static final Set<String> OPAQUE = Set.of("CALL", "EXEC", "EXECUTE", "RUNSCRIPT", "CHECKPOINT", "SHUTDOWN");

    /**
     * Statements that only steer transactions (and MariaDB's table locks) and write no data: the
     * guard need not run before them, and must not run before a rollback.
     */
    private static final Set<String> CONTROL = Set.of(
            "COMMIT",
            "END",
            "ROLLBACK",
            "ABORT",
            "BEGIN",
            "START",
            "SAVEPOINT",
            "RELEASE",
            "SET",
            "XA",
            "LOCK",
            "UNLOCK");

    /**
     * Statements that only read data. Under nothing but shared locks (or semaphore permits), whose
     * tokens fence nothing, they run unguarded while everything else is refused. A writing CTE or a
     * {@code SELECT} of a function that writes is not recognised as a write.
     */
    private static final Set<String> READS =
            Set.of("SELECT", "WITH", "VALUES", "TABLE", "SHOW", "EXPLAIN", "DESCRIBE", "DESC", "HELP");

    /**
     * What one execution of SQL text does, as far as the guard cares.
     *
     * @param last the boundary of its last statement (or the worst one, when the text could not be split)
     * @param endsBeforeLast whether a statement before the last one ends the transaction: the later
     *     statements would run in a transaction the guard never saw
     * @param writes whether any statement may write data (everything but transaction control)
     * @param readsOnly whether every statement only reads or steers the transaction ({@link #READS})
     */
    record Effect(TransactionBoundary last, boolean endsBeforeLast, boolean writes, boolean readsOnly) {

        static final Effect OPAQUE_CALL = new Effect(COMMIT, false, true, false);

        /** The effect of running several texts in order (a batch, or one text read in several ways). */
        Effect and(Effect next) {
            return new Effect(
                    next.last.ordinal() > this.last.ordinal() ? next.last : this.last,
                    this.endsBeforeLast || next.endsBeforeLast,
                    this.writes || next.writes,
                    this.readsOnly && next.readsOnly);
        }
    }

    /** The effect of {@code sql}, read with each of {@code syntaxes} (the worst reading wins). */
    static Effect of(String sql, List<SqlText.Syntax> syntaxes) {
        Effect effect = null;
        for (SqlText.Syntax syntax : syntaxes) {
            Effect reading = read(SqlText.split(sql, syntax));
            effect = (effect == null) ? reading : effect.and(reading);
        }
        return effect;
    }

    /** The effect of a batch of texts run one after the other. */
    static Effect ofBatch(List<String> texts, List<SqlText.Syntax> syntaxes) {
        Effect effect = new Effect(NONE, false, false, true);
        for (int i = 0; i < texts.size(); i++) {
            Effect one = of(texts.get(i), syntaxes);
            boolean notLast = i < texts.size() - 1;
            effect = new Effect(
                    notLast ? effect.last : one.last,
                    effect.endsBeforeLast || one.endsBeforeLast || (notLast && one.last.ends()),
                    effect.writes || one.writes,
                    effect.readsOnly && one.readsOnly);
        }
        return effect;
    }

    private static Effect read(SqlText.Statements statements) {
        List<String> heads = statements.heads();
        boolean endsBeforeLast = false;
        boolean writes = false;
        boolean readsOnly = true;
        for (int i = 0; i < heads.size(); i++) {
            TransactionBoundary boundary = of(heads.get(i));
            endsBeforeLast |= (i < heads.size() - 1) && boundary.ends();
            writes |= !isControl(heads.get(i));
            readsOnly &= isControl(heads.get(i)) || READS.contains(firstWord(heads.get(i)));
        }
        TransactionBoundary last = heads.isEmpty() ? NONE : of(heads.get(heads.size() - 1));
        if (!statements.complete()) {
            // Text that could not be split with certainty: guard it and trust no check past it.
            return new Effect(COMMIT, endsBeforeLast, true, false);
        }
        return new Effect(last, endsBeforeLast, writes, readsOnly);
    }

    private static boolean isControl(String head) {
        return CONTROL.contains(firstWord(head));
    }

    /** The boundary of a statement, from its first words as {@link SqlText} reads them. */
    static TransactionBoundary of(String head) {
        String first = firstWord(head);
        switch (first) {
            case "ROLLBACK":
                // ROLLBACK PREPARED ends another, prepared transaction; this one stays open.
                return head.startsWith("ROLLBACK PREPARED") ? NONE : ROLLBACK;
            case "ABORT":
                return ROLLBACK;
            case "COMMIT":
                return head.startsWith("COMMIT PREPARED") ? NONE : COMMIT;
            case "END":
            case "BEGIN":
            case "START":
            case "XA":
                return COMMIT;
            case "PREPARE":
                // PREPARE TRANSACTION hands this transaction over to two-phase commit.
                return head.startsWith("PREPARE TRANSACTION") ? COMMIT : NONE;
            case "SET":
                return List.of(head.split(" ")).contains("AUTOCOMMIT") || head.contains("@@AUTOCOMMIT") ? COMMIT : NONE;
            default:
                return (IMPLICIT_COMMIT.contains(first) || OPAQUE.contains(first)) ? COMMIT : NONE;
        }
    }

    /** Whether the guard's check ends with this statement. */
    boolean ends() {
        return this != NONE;
    }

    private static String firstWord(String head) {
        int space = head.indexOf(' ');
        return (space < 0) ? head : head.substring(0, space);
    }
}
