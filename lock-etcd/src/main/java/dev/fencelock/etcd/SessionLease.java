package dev.fencelock.etcd;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One etcd lease shared by every lock of a client with the same TTL, so 20,000 held locks cost
 * one keep-alive per TTL/3 instead of 20,000.
 *
 * <p>Its validity is computed here, not taken from jetcd: each successful keep-alive extends it
 * to <em>the time the keep-alive was sent</em> plus the TTL minus a safety margin. The server
 * cannot have received the request before it was sent, so its expiry is never earlier than
 * ours; past our deadline every lock on the lease counts as lost.
 */
final class SessionLease {

    final long leaseId;

    final long ttlSeconds;

    private final long validityNanos;

    private volatile long validUntilNanos;

    private volatile boolean expired;

    private volatile long lastConfirmedSentNanos;

    final Set<EtcdLock> locks = ConcurrentHashMap.newKeySet();

    volatile @Nullable ScheduledFuture<?> keepAliveTask;

    volatile @Nullable ScheduledFuture<?> deadlineTask;

    SessionLease(long leaseId, long ttlSeconds, long grantedTtlSeconds, long sentNanos) {
        this.leaseId = leaseId;
        this.ttlSeconds = ttlSeconds;
        long ttlNanos = TimeUnit.SECONDS.toNanos(Math.min(ttlSeconds, grantedTtlSeconds));
        this.validityNanos = ttlNanos - safetyMargin(ttlNanos);
        this.validUntilNanos = sentNanos + this.validityNanos;
        this.lastConfirmedSentNanos = sentNanos;
    }

    /** A tenth of the TTL, at least 100 ms: room for clock-rate drift and scheduling delay. */
    static long safetyMargin(long ttlNanos) {
        return Math.max(ttlNanos / 10, TimeUnit.MILLISECONDS.toNanos(100));
    }

    long validUntilNanos() {
        return this.validUntilNanos;
    }

    /** How long its locks stay valid without a further keep-alive; negative past the deadline. */
    Duration validFor() {
        return Duration.ofNanos(this.validUntilNanos - System.nanoTime());
    }

    /** How long ago the last keep-alive that etcd confirmed was sent (or the lease was granted). */
    Duration sinceLastConfirmed() {
        return Duration.ofNanos(System.nanoTime() - this.lastConfirmedSentNanos);
    }

    boolean isExpired() {
        return this.expired || System.nanoTime() - this.validUntilNanos >= 0;
    }

    /** Whether a keep-alive sent after {@code sentNanos} was confirmed. */
    boolean confirmedSince(long sentNanos) {
        return this.lastConfirmedSentNanos - sentNanos > 0;
    }

    /** Records a keep-alive sent at {@code sentNanos} that etcd answered with a live TTL. */
    synchronized void confirmed(long sentNanos, long remainingTtlSeconds) {
        if (this.expired) {
            return;
        }
        if (sentNanos - this.lastConfirmedSentNanos > 0) {
            this.lastConfirmedSentNanos = sentNanos;
        }
        long validity = Math.min(this.validityNanos, TimeUnit.SECONDS.toNanos(remainingTtlSeconds));
        long candidate = sentNanos + validity;
        if (candidate - this.validUntilNanos > 0) {
            this.validUntilNanos = candidate;
        }
    }

    /** Marks the session dead for good; returns whether this call did it. */
    synchronized boolean expire() {
        if (this.expired) {
            return false;
        }
        this.expired = true;
        return true;
    }

    /** Period between keep-alives: a third of the TTL. */
    long keepAlivePeriodNanos() {
        return TimeUnit.SECONDS.toNanos(this.ttlSeconds) / 3;
    }
}
