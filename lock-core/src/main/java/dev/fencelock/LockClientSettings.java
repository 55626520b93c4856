package dev.fencelock;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** The defaults and bounds of a {@link LockClient}, as configured through its {@link LockClientBuilder}. */
public final class LockClientSettings {

    private final Duration defaultLeaseTtl;

    private final Duration defaultWaitTimeout;

    private final Duration maxLeaseTtl;

    private final Duration maxWaitTimeout;

    private final Duration tryTimeout;

    private final int maxWaitersPerResource;

    private final int maxResourceLength;

    /**
     * Checks the defaults against the bounds.
     *
     * @throws IllegalArgumentException when the defaults break the bounds
     */
    LockClientSettings(
            Duration defaultLeaseTtl,
            Duration defaultWaitTimeout,
            Duration maxLeaseTtl,
            Duration maxWaitTimeout,
            Duration tryTimeout,
            int maxWaitersPerResource,
            int maxResourceLength) {
        this.defaultLeaseTtl = defaultLeaseTtl;
        this.defaultWaitTimeout = defaultWaitTimeout;
        this.maxLeaseTtl = maxLeaseTtl;
        this.maxWaitTimeout = maxWaitTimeout;
        this.tryTimeout = tryTimeout;
        this.maxWaitersPerResource = maxWaitersPerResource;
        this.maxResourceLength = maxResourceLength;
        ttlSeconds(this.defaultLeaseTtl, null);
        if (this.defaultWaitTimeout.compareTo(this.maxWaitTimeout) > 0) {
            throw new IllegalArgumentException("Default wait timeout " + this.defaultWaitTimeout
                    + " exceeds the maximum wait timeout " + this.maxWaitTimeout);
        }
    }

    public Duration defaultLeaseTtl() {
        return this.defaultLeaseTtl;
    }

    public Duration defaultWaitTimeout() {
        return this.defaultWaitTimeout;
    }

    public Duration maxLeaseTtl() {
        return this.maxLeaseTtl;
    }

    public Duration maxWaitTimeout() {
        return this.maxWaitTimeout;
    }

    public int maxWaitersPerResource() {
        return this.maxWaitersPerResource;
    }

    public int maxResourceLength() {
        return this.maxResourceLength;
    }

    /** Time a try-lock, a renewal or a waited-for release may take for its round trip to the store. */
    Duration tryTimeout() {
        return this.tryTimeout;
    }

    /**
     * Converts a lease TTL to etcd's whole seconds, in this one place: below one second is an
     * error (etcd cannot express it), a fraction above is rounded up (never shorter than asked).
     */
    long ttlSeconds(@Nullable Duration requested, @Nullable ResourceName resource) {
        Duration ttl = (requested != null) ? requested : this.defaultLeaseTtl;
        String what = (resource != null) ? "lock '" + resource + "'" : "the default";
        if (ttl.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("Lease TTL " + ttl + " for " + what
                    + " is below one second; etcd leases are whole seconds, use at least 1s");
        }
        if (ttl.compareTo(this.maxLeaseTtl) > 0) {
            throw new IllegalArgumentException("Lease TTL " + ttl + " for " + what + " exceeds the maximum "
                    + this.maxLeaseTtl + " (max-lease-ttl)");
        }
        long seconds = ttl.getSeconds();
        return (ttl.getNano() > 0) ? seconds + 1 : seconds;
    }

    Duration waitTimeout(@Nullable Duration requested, ResourceName resource) {
        Duration wait = (requested != null) ? requested : this.defaultWaitTimeout;
        if (wait.isNegative()) {
            throw new IllegalArgumentException("Wait timeout " + wait + " for lock '" + resource + "' is negative");
        }
        if (wait.compareTo(this.maxWaitTimeout) > 0) {
            throw new IllegalArgumentException("Wait timeout " + wait + " for lock '" + resource
                    + "' exceeds the maximum " + this.maxWaitTimeout + " (max-wait-timeout)");
        }
        return wait;
    }
}
