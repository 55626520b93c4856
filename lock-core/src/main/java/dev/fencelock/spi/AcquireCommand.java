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
 */
public record AcquireCommand(
        ResourceName resource, String requestId, long ttlSeconds, boolean waitForRelease, long deadlineNanos) {

    /** Nanoseconds left until the deadline, never negative. */
    public long remainingNanos() {
        return Math.max(0, this.deadlineNanos - System.nanoTime());
    }
}
