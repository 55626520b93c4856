package dev.fencelock.verification.checker;

/**
 * One increment as its worker recorded it, from invocation to completion. Timestamps are {@code System.nanoTime()}
 * of the worker, which on Linux is {@code CLOCK_MONOTONIC} and so comparable across the processes of one machine.
 * Absent steps are {@code null}: an operation that failed to acquire has no token, read or commit.
 *
 * @param id the operation id, unique across workers
 * @param worker the worker process
 * @param key the counter (and lock) it incremented
 * @param invokedAt before the lock was requested
 * @param acquiredAt after the lock was granted
 * @param token the fencing token the lock came with
 * @param readAt after the counter was read
 * @param valueRead what it read
 * @param commitAt just before {@code commit()} was called
 * @param outcome how it ended
 * @param completedAt when the outcome was known ({@code null} if it never was)
 * @param valueWritten what an acknowledged increment wrote
 * @param reason why it failed or is unknown, a short category such as {@code fenced-db}
 * @param releaseStartedAt before the lock was released
 * @param releasedAt after the release returned
 * @param releaseReturned what {@code release()} returned: {@code false} when the lock had been lost by then
 * @param lostAt when the lock's lost-listener ran: its holder learned that the lock was gone
 */
public record Operation(
        String id,
        String worker,
        String key,
        long invokedAt,
        Long acquiredAt,
        Long token,
        Long readAt,
        Long valueRead,
        Long commitAt,
        Outcome outcome,
        Long completedAt,
        Long valueWritten,
        String reason,
        Long releaseStartedAt,
        Long releasedAt,
        Boolean releaseReturned,
        Long lostAt) {

    /** How an operation ended, in the terms of a Jepsen history. */
    public enum Outcome {
        /** Committed and acknowledged. */
        OK,
        /** Known not to have been applied: not acquired, or rolled back before commit was called. */
        FAIL,
        /** Unknown: commit was called but did not answer normally. */
        INFO,
        /** Invoked, never completed (the worker was stopped or killed first): unknown too. */
        UNFINISHED
    }

    /** Whether its outcome leaves open that it was applied. */
    public boolean mayHaveApplied() {
        return outcome == Outcome.OK || outcome == Outcome.INFO || outcome == Outcome.UNFINISHED;
    }
}
