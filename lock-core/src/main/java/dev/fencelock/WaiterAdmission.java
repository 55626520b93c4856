package dev.fencelock;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds how many acquisitions of one client are in progress for one resource, so a hot resource
 * cannot queue unbounded callers (and their memory) behind it. Counts live only while attempts do.
 */
final class WaiterAdmission {

    private final int maxWaitersPerResource;

    private final ConcurrentHashMap<ResourceName, AtomicInteger> attempts = new ConcurrentHashMap<>();

    private final AtomicInteger waiting = new AtomicInteger();

    WaiterAdmission(int maxWaitersPerResource) {
        this.maxWaitersPerResource = maxWaitersPerResource;
    }

    /**
     * Counts one more attempt on {@code resource}; the caller leaves through the ticket, exactly
     * once, when the attempt ends whichever way.
     *
     * @throws LockQueueFullException when the resource already has the most attempts allowed
     */
    Ticket admit(ResourceName resource) {
        AtomicInteger count = this.attempts.computeIfAbsent(resource, key -> new AtomicInteger());
        int attempts = count.incrementAndGet();
        if (attempts > this.maxWaitersPerResource) {
            endAttempt(resource, count);
            throw new LockQueueFullException("Lock '" + resource + "' already has " + this.maxWaitersPerResource
                    + " callers of this client waiting; raise max-waiters-per-resource or shed load");
        }
        this.waiting.incrementAndGet();
        return new Ticket(resource, count, attempts);
    }

    /** Number of admitted attempts, over all resources, that have not ended. */
    int waitingCount() {
        return this.waiting.get();
    }

    /** Number of admitted attempts on {@code resource} that have not ended. */
    int attemptsOn(ResourceName resource) {
        AtomicInteger count = this.attempts.get(resource);
        return (count != null) ? count.get() : 0;
    }

    /** Number of resources with a count kept for them; zero once every attempt ended. */
    int trackedResources() {
        return this.attempts.size();
    }

    private void endAttempt(ResourceName resource, AtomicInteger count) {
        if (count.decrementAndGet() == 0) {
            this.attempts.remove(resource, count);
        }
    }

    /** One admitted attempt. */
    final class Ticket {

        private final ResourceName resource;

        private final AtomicInteger count;

        private final int attemptsAtAdmission;

        private Ticket(ResourceName resource, AtomicInteger count, int attemptsAtAdmission) {
            this.resource = resource;
            this.count = count;
            this.attemptsAtAdmission = attemptsAtAdmission;
        }

        /** Attempts on the resource in progress when this one was admitted, itself included. */
        int attemptsAtAdmission() {
            return this.attemptsAtAdmission;
        }

        /** Ends the attempt; call it once. */
        void leave() {
            WaiterAdmission.this.waiting.decrementAndGet();
            endAttempt(this.resource, this.count);
        }
    }
}
