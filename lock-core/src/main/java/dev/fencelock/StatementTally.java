package dev.fencelock;

/**
 * How many statements a fencing-aware data layer sent on the current thread, and how many of them
 * may have written: the record from which code that reports on a lock's work ({@code
 * @DistributedLock} after a lost lock) tells a transaction that only read from one that wrote.
 *
 * <p>A data layer calls {@link #ran(boolean)} once per statement (or batch) it is about to send,
 * with {@code false} only for SQL it knows reads and nothing else. A reader takes {@link
 * #current()} before and after a stretch of work and subtracts. Until a data layer reports, the
 * counts stay at zero, which a reader must take for "not known", never for "nothing was written".
 */
public final class StatementTally {

    /** {@code [statements, statements that may write]} of this thread. */
    private static final ThreadLocal<long[]> COUNTS = ThreadLocal.withInitial(() -> new long[2]);

    private StatementTally() {}

    /**
     * Counts one statement, or one batch, that is about to be sent on this thread.
     *
     * @param mayWrite whether it may write: {@code false} only for SQL known to read and nothing else
     */
    public static void ran(boolean mayWrite) {
        long[] counts = COUNTS.get();
        counts[0]++;
        if (mayWrite) {
            counts[1]++;
        }
    }

    /** This thread's counts so far. */
    public static Counts current() {
        long[] counts = COUNTS.get();
        return new Counts(counts[0], counts[1]);
    }

    /**
     * Statements counted on one thread.
     *
     * @param statements statements and batches reported
     * @param mayWrite those among them that may have written
     */
    public record Counts(long statements, long mayWrite) {

        /** No statement. */
        public static final Counts NONE = new Counts(0, 0);

        /** What was counted after {@code earlier}. */
        public Counts since(Counts earlier) {
            return new Counts(this.statements - earlier.statements, this.mayWrite - earlier.mayWrite);
        }

        /** Both together. */
        public Counts plus(Counts other) {
            return new Counts(this.statements + other.statements, this.mayWrite + other.mayWrite);
        }
    }
}
