package dev.fencelock;

import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One hold of a distributed lock. Closing it releases the hold.
 *
 * <p>The {@linkplain #fencingToken() fencing token} is what keeps data safe, not the lease. A
 * timeline of why:
 *
 * <pre>
 *  A acquires (token 7) ── GC pause ........................ wakes, writes with 7 ─▶ rejected
 *                    lease expires ─▶ B acquires (token 9), writes with 9 ─▶ accepted
 * </pre>
 *
 * A cannot know it was paused; the store can, because it already accepted 9. Pass the token to
 * every write the lock protects (FenceLock's JDBC support does it for you).
 */
public interface LockLease extends AutoCloseable {

    /** The normalised resource name this lease locks. */
    String resource();

    /** The request id that identifies this acquisition (generated when the request had none). */
    String requestId();

    /**
     * The bounded name the lock was requested with ({@link LockRequest#lockName()}), or {@value
     * LockEventListener#UNNAMED}: safe as a metric tag, unlike the resource.
     */
    default String lockName() {
        return LockEventListener.UNNAMED;
    }

    /** {@link LockMode#SHARED} for a read lock, {@link LockMode#EXCLUSIVE} otherwise (semaphores too). */
    default LockMode mode() {
        return LockMode.EXCLUSIVE;
    }

    /** The number of permits of the semaphore this is a permit of; 1 for a lock. */
    default int permits() {
        return 1;
    }

    /**
     * Whether this holder is alone with its resource, so that its token fences writes: an
     * exclusive lock, neither shared nor one permit of several.
     */
    default boolean isExclusive() {
        return mode() == LockMode.EXCLUSIVE && permits() == 1;
    }

    /**
     * Whether {@link #fencingToken()} is a fencing token: one that no other holder of the resource
     * can ever carry again, even across the lock store's failures, so a database can refuse a write
     * with a smaller one. Locks on etcd answer {@code true}. Locks on Redis answer {@code false}: a
     * failover to a replica that missed the last writes can grant the same lock, and the same
     * counter value, to a second holder while the first still holds it. Such a lock is an
     * efficiency lock (it avoids doing work twice, mostly); FenceLock's JDBC guard refuses its token.
     */
    default boolean isFencing() {
        return true;
    }

    /** Identifier of the backend lease that keeps this lock alive. */
    long leaseId();

    /**
     * A number larger than the token of every earlier holder of this resource; the same for every
     * re-entrant hold of one acquisition. Holders of a shared lock or a semaphore hold together, so
     * their tokens only say that they came after every earlier exclusive holder; an exclusive
     * holder's token is larger than every earlier holder's, readers' and permit holders' included.
     */
    long fencingToken();

    /**
     * The latest instant until which this process is sure it holds the lock, computed
     * conservatively from when the last successful renewal was sent.
     */
    Instant expiresAt();

    /** Whether the lock is held: not released, not lost, and still before {@link #expiresAt()}. */
    boolean isValid();

    /**
     * Confirms with the store that the lock is still held and extends its lease.
     *
     * @return the new {@link #expiresAt()}
     * @throws LockLostException if the lock is gone (it is then reported lost to listeners)
     * @throws LockBackendUnavailableException if the store could not confirm it in time
     */
    Instant renew();

    /**
     * Gives this hold up. The lock itself is deleted when the last re-entrant hold is released.
     *
     * @return {@code true} if this call released the hold; {@code false} if it was already
     *     released or the lock had been lost
     */
    boolean release();

    /**
     * Gives this hold up at once and deletes the lock from the store in the background. A late
     * delete never breaks safety: the lock stays held a little longer, never shorter.
     *
     * @return completes with what {@link #release()} would have returned, once the store answered
     *     (or the background retry took over)
     */
    CompletableFuture<Boolean> releaseAsync();

    /**
     * Runs {@code listener} once if the lock is lost while held (not after a normal release). If
     * it is already lost, the listener runs at once. Listeners must not block.
     */
    void onLost(Consumer<LockLostException> listener);

    /** Same as {@link #release()}. */
    @Override
    void close();
}
