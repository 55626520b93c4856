package dev.fencelock;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Callbacks for what happens to the locks of one {@link LockClient}, for metrics and audit. They
 * run on the thread that caused the event, so they must be quick and must never throw.
 *
 * <p>{@code lockName} is the bounded name of the lock ({@link LockRequest#lockName()}), or
 * {@value #UNNAMED} when the request had none. It is safe to use as a metric tag. The resource
 * itself is not safe as a tag.
 */
public interface LockEventListener {

    /** The lock name used when a request sets none. */
    String UNNAMED = "unnamed";

    /** A listener that ignores everything. */
    LockEventListener NONE = new LockEventListener() {};

    /** An acquisition succeeded after {@code waited}; {@code reentered} when no store call was made. */
    default void acquired(LockLease lease, String lockName, Duration waited, boolean reentered) {}

    /** An acquisition ended without the lock. */
    default void acquireFailed(ResourceName resource, String lockName, Throwable cause, Duration waited) {}

    /**
     * {@link #acquireFailed(ResourceName, String, Throwable, Duration)}, knowing whether the attempt
     * would queue: {@code queued} is false for a try ({@link LockClient#tryAcquire}, or a zero wait
     * timeout), whose {@link LockAcquisitionTimeoutException} means it found the lock held (a
     * conflict) rather than that it waited in vain. The default calls the four-argument method.
     */
    default void acquireFailed(
            ResourceName resource, String lockName, Throwable cause, Duration waited, boolean queued) {
        acquireFailed(resource, lockName, cause, waited);
    }

    /**
     * The last hold of a lock was released after it was held for {@code held}; the store call took
     * {@code took}.
     */
    default void released(LockLease lease, String lockName, Duration held, Duration took) {}

    /**
     * {@link #released(LockLease, String, Duration, Duration)}, knowing what the store did: {@code
     * alreadyGone} when there was nothing left to delete, because the lock had been force-released
     * or had expired (a stale holder's release). The default calls the four-argument method.
     */
    default void released(LockLease lease, String lockName, Duration held, Duration took, boolean alreadyGone) {
        released(lease, lockName, held, took);
    }

    /** A renewal ended: {@code failure} is {@code null} when it succeeded. */
    default void renewed(LockLease lease, String lockName, Duration took, @Nullable Throwable failure) {}

    /** A held lock was lost. */
    default void lost(LockLease lease, String lockName, LockLostException cause) {}

    /**
     * A lock was lost after the work it protected had committed, so its caller got the result
     * (reported by {@link LockClient#reportLostAfterCommit}); {@link #lost} was called for the same
     * loss too.
     */
    default void lostAfterCommit(LockLease lease, String lockName) {}

    /** Calls every listener in turn, so one that misbehaves cannot stop the others. */
    static LockEventListener composite(Iterable<? extends LockEventListener> listeners) {
        return new CompositeLockEventListener(listeners);
    }
}
