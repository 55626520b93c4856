package dev.fencelock.etcd;

import dev.fencelock.spi.LockKind;
import org.jspecify.annotations.Nullable;

/**
 * A local acquisition whose key waits in a resource's queue, as the queue mirror and a release's
 * hand-over see it. The mirror decides for a waiter; the waiter acts on the decision.
 */
interface QueueWaiter {

    /** Create revision of my key (0 until the put answered). */
    long revision();

    /** The session lease my key is on, once known. */
    @Nullable
    SessionLease session();

    /**
     * Nothing that keeps me out is left ahead of my key created at {@code revision}: I hold the lock
     * (the first of several deciders wins). A decision about a key I no longer wait with (I put
     * again since) is ignored: keys may be ahead of the new one.
     */
    void grant(SessionLease session, long revision);

    /** A key of another number of permits is ahead of mine: the acquisition is refused. */
    void conflicts(LockKind ahead);

    /** My key left the queue before I was granted. */
    void queueEntryGone();

    /** The shared watch can no longer decide for me: read my predecessor instead. */
    void watchFailed();
}
