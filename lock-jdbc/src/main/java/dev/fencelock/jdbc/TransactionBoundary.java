package dev.fencelock.jdbc;

import dev.fencelock.jdbc.SqlText.Family;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What SQL text does to the transaction around it, as far as the fence guard cares. The guard's
 * check holds until the transaction ends, so every statement that may end it must be known.
 *
 * <p>This is an allow-list: a statement is taken for harmless only in a form recognised in full
 * ({@link StatementKind}). Anything else is guarded and counted as a possible end of the
 * transaction, which costs one more guard at most; trusting a check past a commit would let writes
 * land unfenced. Text is read by every reader its database may use ({@link SqlText.Syntax}), and
 * the worst reading decides.
 */
enum TransactionBoundary {

    /** Stays inside the current transaction. */
    NONE,

    /** Ends it by rolling back (or may undo the guard's row, as a rollback to a savepoint may). */
    ROLLBACK,

    /** Ends it by committing, or may do so. */
    COMMIT;

    /**
     * What one execution of SQL text does, as far as the guard cares.
     *
     * @param last the boundary of its last statement, the worst over all readings
     * @param endsBeforeLast whether, in some reading, a statement before the last one may end the
     *     transaction: the later statements would run in a transaction the guard never saw
     * @param writes whether any statement needs the guard (everything but recognised transaction control)
     * @param readsOnly whether every statement is a recognised read or transaction control
     * @param procedure whether a statement runs code that may commit and write on (a procedure call)
     * @param refusal why the text must not run under a fence at all, or {@code null}
     */
    record Effect(
            TransactionBoundary last,
            boolean endsBeforeLast,
            boolean writes,
            boolean readsOnly,
            boolean procedure,
            @Nullable String refusal) {

        static final Effect OPAQUE_CALL = new Effect(COMMIT, false, true, false, true, null);

        private static final Effect EMPTY = new Effect(NONE, false, false, true, false, null);

        /** Both readings of the same text: the worse of each. */
        Effect or(Effect other) {
            return new Effect(
                    worse(this.last, other.last),
                    this.endsBeforeLast || other.endsBeforeLast,
                    this.writes || other.writes,
                    this.readsOnly && other.readsOnly,
                    this.procedure || other.procedure,
                    (this.refusal != null) ? this.refusal : other.refusal);
        }

        /** This text followed by {@code next} in one batch. */
        Effect then(Effect next) {
            return new Effect(
                    next.last,
                    this.endsBeforeLast || next.endsBeforeLast || this.last.ends(),
                    this.writes || next.writes,
                    this.readsOnly && next.readsOnly,
                    this.procedure || next.procedure,
                    (this.refusal != null) ? this.refusal : next.refusal);
        }
    }

    /**
     * The effect of {@code sql}, read by every reader of {@code family} (the worst reading wins).
     *
     * @param mariaDbVersion see {@link SqlText#split}; -1 reads no versioned comment as code
     */
    static Effect of(String sql, Family family, int mariaDbVersion) {
        Effect effect = null;
        for (SqlText.Syntax syntax : SqlText.Syntax.of(family)) {
            Effect reading = read(SqlText.split(sql, syntax, mariaDbVersion), family);
            effect = (effect == null) ? reading : effect.or(reading);
        }
        return effect;
    }

    /** The effect of a batch of texts run one after the other. */
    static Effect ofBatch(List<String> texts, Family family, int mariaDbVersion) {
        Effect effect = null;
        for (String text : texts) {
            Effect one = of(text, family, mariaDbVersion);
            effect = (effect == null) ? one : effect.then(one);
        }
        return (effect != null) ? effect : Effect.EMPTY;
    }

    private static Effect read(SqlText.Statements statements, Family family) {
        Effect effect = Effect.EMPTY;
        boolean first = true;
        for (SqlText.Statement statement : statements.statements()) {
            StatementKind kind = StatementKind.of(statement, family);
            Effect one = new Effect(
                    kind.end(),
                    false,
                    kind.guarded(),
                    kind.reads(),
                    kind == StatementKind.PROCEDURE,
                    (kind == StatementKind.REFUSED) ? StatementKind.refusal(statement) : null);
            effect = first ? one : effect.then(one);
            first = false;
        }
        if (!statements.complete()) {
            // Where an unterminated literal or comment stops cannot be known: trust no check past it.
            Effect unsure = new Effect(COMMIT, false, true, false, false, null);
            effect = first ? unsure : effect.then(unsure);
        }
        return effect;
    }

    /** Whether the guard's check ends with this statement. */
    boolean ends() {
        return this != NONE;
    }

    private static TransactionBoundary worse(TransactionBoundary a, TransactionBoundary b) {
        return (a.ordinal() >= b.ordinal()) ? a : b;
    }
}
