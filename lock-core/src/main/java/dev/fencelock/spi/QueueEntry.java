package dev.fencelock.spi;

/**
 * One key in a resource's queue, as the store has it, oldest first. Which keys hold and which wait
 * follows from their kinds ({@link QueueWalk}): for exclusive locks the first entry holds and the
 * others wait in order; readers behind no writer hold together; a semaphore's first {@code n}
 * entries hold.
 *
 * @param requestId the acquisition's request id
 * @param leaseId the lease the key lives on
 * @param fencingToken the key's create revision: the holder's token, or a waiter's future token
 * @param holder the holder record the acquiring client wrote (instance, acquired-at, TTL), as stored
 * @param kind exclusive, shared, or one permit of a semaphore, as the key says
 */
public record QueueEntry(String requestId, long leaseId, long fencingToken, String holder, LockKind kind) {

    /** An entry of an exclusive lock. */
    public QueueEntry(String requestId, long leaseId, long fencingToken, String holder) {
        this(requestId, leaseId, fencingToken, holder, LockKind.EXCLUSIVE);
    }
}
