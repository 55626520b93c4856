package dev.fencelock.spi;

import java.time.Duration;

/**
 * What a backend can tell about its store that no lock call shows, for metrics: how long its writes
 * take, the store's leadership as its answers show it, the session leases it keeps alive, and how
 * full the store is. The
 * backend calls it on its own threads, which also keep leases alive, so a listener must be quick
 * and must never throw. Every method does nothing by default; a backend that cannot observe
 * something never calls it.
 */
public interface BackendEventListener {

    /** A listener that ignores everything. */
    BackendEventListener NONE = new BackendEventListener() {};

    /** The store answered a write after {@code took}, from sending it to the answer (one round trip). */
    default void committed(WriteOperation operation, Duration took) {}

    /**
     * An answer carried a larger leadership term than any before it: the store's leader changed at
     * least once since the previous answer this backend saw.
     */
    default void leaderChanged(long previousTerm, long term) {}

    /**
     * Writes stopped committing for want of a leader (or got no answer at all): a stretch without a
     * leader, as this client sees it, began {@code since} ago.
     */
    default void leaderLost(Duration since) {}

    /** A write committed again, ending the stretch without a leader that {@link #leaderLost} began. */
    default void leaderFound(Duration withoutLeader) {}

    /**
     * A session lease expired or the store no longer knew it, so the {@code locks} held on it were lost.
     * Not called for a lease the backend revoked itself on close, nor for a force-released lock.
     */
    default void leaseExpired(int locks) {}

    /** A keep-alive or renewal of a session lease failed; a later one may still succeed. */
    default void renewalFailed(Throwable cause) {}

    /**
     * The backend read how full its store is: database size against the quota, history since the
     * last compaction, raised alarms. Called after each such check (periodically, and with health checks).
     */
    default void capacityChecked(StoreCapacity capacity) {}

    /** Calls every listener in turn, so one that misbehaves cannot stop the others. */
    static BackendEventListener composite(Iterable<? extends BackendEventListener> listeners) {
        return new CompositeBackendEventListener(listeners);
    }
}
