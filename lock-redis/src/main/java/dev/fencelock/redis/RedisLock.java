package dev.fencelock.redis;

import dev.fencelock.ResourceName;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockKind;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition's entry on Redis, from the moment it is queued: while it waits and once it holds.
 * Its validity starts when the write that set (or last extended) its expiry was sent, less the
 * clock-drift allowance of the entry's TTL, so this process stops trusting the lock before the
 * server can give it away, as far as the two clocks run at the same rate.
 */
final class RedisLock extends BackendLock {

    final String value;

    final long ttlMillis;

    private final long ttlNanos;

    private volatile long validUntilNanos;

    private volatile @Nullable ScheduledFuture<?> renewal;

    RedisLock(
            ResourceName resource,
            String requestId,
            long leaseId,
            long token,
            LockKind kind,
            String value,
            long ttlMillis,
            long sentNanos) {
        super(resource, requestId, leaseId, token, kind);
        this.value = value;
        this.ttlMillis = ttlMillis;
        this.ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMillis) - driftNanos(ttlMillis);
        this.validUntilNanos = sentNanos + this.ttlNanos;
    }

    /**
     * What the two clocks may drift apart over a TTL: 1% of it plus 2 ms, the allowance Redis's own
     * locking guidance uses.
     */
    static long driftNanos(long ttlMillis) {
        return TimeUnit.MILLISECONDS.toNanos(ttlMillis / 100 + 2);
    }

    @Override
    public long validUntilNanos() {
        return this.validUntilNanos;
    }

    /** The server extended the entry with a write sent at {@code sentNanos}. */
    synchronized void extended(long sentNanos) {
        if (sentNanos + this.ttlNanos - this.validUntilNanos > 0) {
            this.validUntilNanos = sentNanos + this.ttlNanos;
        }
    }

    /** Whether this process can no longer vouch for the entry: its validity ran out. */
    boolean expired() {
        return System.nanoTime() - this.validUntilNanos >= 0;
    }

    void renewal(ScheduledFuture<?> renewal) {
        this.renewal = renewal;
    }

    void stopRenewal() {
        ScheduledFuture<?> current = this.renewal;
        if (current != null) {
            current.cancel(false);
        }
    }
}
