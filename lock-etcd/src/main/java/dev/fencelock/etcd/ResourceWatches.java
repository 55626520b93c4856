package dev.fencelock.etcd;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/** The open {@link ResourceWatch}es of one backend, one per resource with local waiters. */
final class ResourceWatches {

    private final EtcdCalls calls;

    private final Map<String, ResourceWatch> watches = new ConcurrentHashMap<>();

    ResourceWatches(EtcdCalls calls) {
        this.calls = calls;
    }

    /**
     * Subscribes {@code waiter} to the watch of the resource with key prefix {@code prefix},
     * starting one if there is none or the one there closed.
     */
    ResourceWatch join(String prefix, QueueWaiter waiter) {
        return this.watches.compute(
                prefix,
                (p, existing) -> (existing != null && existing.subscribe(waiter))
                        ? existing
                        : new ResourceWatch(p, waiter, this.calls, this.watches));
    }

    /** Whether a live, seeded watch mirrors the queue of the resource with this key prefix. */
    boolean isMirrored(String prefix) {
        ResourceWatch watch = this.watches.get(prefix);
        return watch != null && watch.isSeededAndOpen();
    }

    /** The local waiter that takes over {@code lock} when its release commits, if the mirror knows one. */
    @Nullable
    Successor successorOf(EtcdLock lock) {
        ResourceWatch watch = this.watches.get(lock.key.substring(0, lock.key.lastIndexOf('/') + 1));
        return (watch != null) ? watch.successorOf(lock.fencingToken()) : null;
    }

    /** How many resources' watches are open. */
    int size() {
        return this.watches.size();
    }

    /** Closes every watch stream; the backend is closing. */
    void closeAll() {
        this.watches.values().forEach(ResourceWatch::closeWatcher);
        this.watches.clear();
    }
}
