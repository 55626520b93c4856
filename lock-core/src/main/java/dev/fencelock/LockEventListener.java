package dev.fencelock;

import java.time.Duration;

/**
 * Callbacks for what happens to locks of one {@link LockClient}, for metrics and audit. Methods
 * run on the thread that caused the event and must be quick and never throw.
 */
public interface LockEventListener {

    /** A listener that ignores everything. */
    LockEventListener NONE = new LockEventListener() {};

    /** An acquisition attempt is about to start (not called for re-entry). */
    default void acquiring(ResourceName resource) {}

    /** An acquisition succeeded after {@code waited}; {@code reentered} when no store call was made. */
    default void acquired(LockLease lease, Duration waited, boolean reentered) {}

    /** An acquisition ended without the lock. */
    default void acquireFailed(ResourceName resource, Throwable cause, Duration waited) {}

    /** The last hold of a lock was released after it was held for {@code held}. */
    default void released(LockLease lease, Duration held) {}

    /** A renewal call ended: {@code cause} is {@code null} when it succeeded. */
    default void renewed(LockLease lease, Duration took, Throwable cause) {}

    /** A held lock was lost. */
    default void lost(LockLease lease, LockLostException cause) {}
}
