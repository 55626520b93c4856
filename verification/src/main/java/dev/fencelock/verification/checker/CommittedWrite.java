package dev.fencelock.verification.checker;

/**
 * One row of the history table: an increment that the database committed.
 *
 * @param key the counter
 * @param token the fencing token the writer held
 * @param worker the writer's process
 * @param operationId the writer's operation id
 * @param valueRead what the writer read from the counter
 * @param valueWritten what it wrote back
 * @param commitOrder a sequence value drawn after the counter row was updated: the counter row's lock orders it
 *     like the commits of that key (see {@link HistoryChecker})
 */
public record CommittedWrite(
        String key,
        long token,
        String worker,
        String operationId,
        long valueRead,
        long valueWritten,
        long commitOrder) {}
