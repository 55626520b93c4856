package dev.fencelock.benchmarks;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Checks every hold of a case whose threads may lock the same resource: nobody else holds it,
 * and (for systems with fencing tokens) its token is larger than the resource's previous one.
 * Counts how often an acquisition found another thread of the case using its resource
 * (contention) and how often it locked a resource locked before in the case (reuse).
 */
final class HoldChecks {

    /** One resource as the case's threads use it. */
    static final class Resource {

        /** Threads acquiring or holding it right now. */
        private final AtomicInteger users = new AtomicInteger();

        /** The holding thread's id, 0 when free. */
        private final AtomicInteger holder = new AtomicInteger();

        private final AtomicLong acquired = new AtomicLong();

        /** Written only by the holder. */
        private volatile long lastToken = Long.MIN_VALUE;
    }

    private final boolean checkTokens;

    private final ConcurrentHashMap<String, Resource> resources = new ConcurrentHashMap<>();

    private final AtomicLong acquisitions = new AtomicLong();

    private final AtomicLong contended = new AtomicLong();

    private final AtomicLong reused = new AtomicLong();

    private final AtomicLong violations = new AtomicLong();

    HoldChecks(boolean checkTokens) {
        this.checkTokens = checkTokens;
    }

    /** Before the acquire call. */
    Resource arriving(String key) {
        Resource resource = this.resources.computeIfAbsent(key, k -> new Resource());
        if (resource.users.getAndIncrement() > 0) {
            this.contended.incrementAndGet();
        }
        return resource;
    }

    /** Once the acquire call returned the lock to thread {@code thread} (ids start at 1). */
    void acquired(Resource resource, int thread, long token) {
        this.acquisitions.incrementAndGet();
        if (!resource.holder.compareAndSet(0, thread)) {
            this.violations.incrementAndGet();
        }
        if (this.checkTokens) {
            if (token <= resource.lastToken) {
                this.violations.incrementAndGet();
            }
            resource.lastToken = token;
        }
        if (resource.acquired.getAndIncrement() > 0) {
            this.reused.incrementAndGet();
        }
    }

    /** Just before the release call: from here another thread may hold it. */
    void releasing(Resource resource, int thread) {
        resource.holder.compareAndSet(thread, 0);
    }

    /** After the release call, or after an acquire call that failed. */
    void left(Resource resource) {
        resource.users.decrementAndGet();
    }

    /** What was counted, for the case's result. */
    CaseResult.Sharing sharing() {
        return new CaseResult.Sharing(
                this.acquisitions.get(), this.contended.get(), this.reused.get(), this.resources.size());
    }

    /** Double holders and fencing tokens that did not grow. */
    long violations() {
        return this.violations.get();
    }
}
