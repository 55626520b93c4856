package dev.fencelock.spi;

import dev.fencelock.ResourceName;

/**
 * One acquisition as the client hands it to a backend, already validated and bounded.
 *
 * @param resource the normalised resource
 * @param requestId names the acquisition; the same id finds the same lock again
 * @param ttlSeconds lease time to live, whole seconds, at least one
 * @param waitForRelease whether to queue behind the current holder, or give up at once
 * @param deadlineNanos {@link System#nanoTime()} by which the attempt completes, one way or the other
 * @param generatedRequestId whether the client generated the request id (no caller can retry with
 *     it, so nothing need be kept for a retry); never inferred from the id's shape, because callers'
 *     idempotency keys are often UUIDs too
 * @param kind exclusive, shared, or one of a semaphore's permits
 */
public record AcquireCommand(
        ResourceName resource,
        String requestId,
        long ttlSeconds,
        boolean waitForRelease,
        long deadlineNanos,
        boolean generatedRequestId,
        LockKind kind) {

    /** An exclusive acquisition. */
    public AcquireCommand(
            ResourceName resource,
            String requestId,
            long ttlSeconds,
            boolean waitForRelease,
            long deadlineNanos,
            boolean generatedRequestId) {
        this(resource, requestId, ttlSeconds, waitForRelease, deadlineNanos, generatedRequestId, LockKind.EXCLUSIVE);
    }

    /** Nanoseconds left until the deadline, never negative. */
    public long remainingNanos() {
        return Math.max(0, this.deadlineNanos - System.nanoTime());
    }
}
