package dev.fencelock;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What to lock and on which terms. Unset values take the client's defaults.
 *
 * <p>The {@linkplain Builder#requestId(String) request id} names one acquisition. Passing the
 * same id again is how a caller retries safely (a retry after a lost response gets the original
 * lock and token back) and how one owner re-enters a lock it holds (the hold count grows, the
 * token stays). Leave it unset and every request is a new acquisition.
 *
 * <p>By default a request asks for an exclusive lock. {@link Builder#mode(LockMode) mode(SHARED)}
 * asks for a read lock that other readers share; {@link Builder#permits(int) permits(n)} asks for
 * one of {@code n} permits of a semaphore. Every client must use the same number of permits for a
 * resource.
 */
public final class LockRequest {

    private final String resource;

    private final @Nullable String requestId;

    private final @Nullable Duration leaseTtl;

    private final @Nullable Duration waitTimeout;

    private final @Nullable String lockName;

    private final LockMode mode;

    private final int permits;

    private final boolean poll;

    private LockRequest(Builder builder) {
        this.resource = builder.resource;
        this.requestId = builder.requestId;
        this.leaseTtl = builder.leaseTtl;
        this.waitTimeout = builder.waitTimeout;
        this.lockName = builder.lockName;
        this.mode = builder.mode;
        this.permits = builder.permits;
        this.poll = builder.poll;
    }

    /** A request for {@code resource} with the client's default lease TTL and wait timeout. */
    public static LockRequest of(String resource) {
        return builder(resource).build();
    }

    public static Builder builder(String resource) {
        return new Builder(resource);
    }

    public String resource() {
        return this.resource;
    }

    public @Nullable String requestId() {
        return this.requestId;
    }

    public @Nullable Duration leaseTtl() {
        return this.leaseTtl;
    }

    public @Nullable Duration waitTimeout() {
        return this.waitTimeout;
    }

    /** The bounded name that metrics and the audit log use for this lock, if one was given. */
    public @Nullable String lockName() {
        return this.lockName;
    }

    /** Exclusive (the default) or shared. */
    public LockMode mode() {
        return this.mode;
    }

    /** How many holders a semaphore admits at once; 1 (the default) for a lock. */
    public int permits() {
        return this.permits;
    }

    /** Whether this acquisition is one poll of a caller that asks again and again ({@link Builder#poll(boolean)}). */
    public boolean poll() {
        return this.poll;
    }

    @Override
    public String toString() {
        return "LockRequest[resource=" + this.resource + ", requestId=" + this.requestId + ", leaseTtl=" + this.leaseTtl
                + ", waitTimeout=" + this.waitTimeout + ", mode=" + this.mode + ", permits=" + this.permits + "]";
    }

    /** Builds a {@link LockRequest}; values are checked against the client's bounds when it is used. */
    public static final class Builder {

        private final String resource;

        private @Nullable String requestId;

        private @Nullable Duration leaseTtl;

        private @Nullable Duration waitTimeout;

        private @Nullable String lockName;

        private LockMode mode = LockMode.EXCLUSIVE;

        private int permits = 1;

        private boolean poll;

        private Builder(String resource) {
            this.resource = Objects.requireNonNull(resource, "resource must not be null");
        }

        /** Names this acquisition, for idempotent retries and re-entry; at most 128 characters. */
        public Builder requestId(String requestId) {
            this.requestId = Objects.requireNonNull(requestId, "requestId must not be null");
            return this;
        }

        /**
         * How long the lock survives this process going silent. etcd leases are whole seconds:
         * at least one second, and a fraction is rounded up.
         */
        public Builder leaseTtl(Duration leaseTtl) {
            this.leaseTtl = Objects.requireNonNull(leaseTtl, "leaseTtl must not be null");
            return this;
        }

        /** How long {@link LockClient#acquire(LockRequest)} waits for a busy lock; zero means try once. */
        public Builder waitTimeout(Duration waitTimeout) {
            this.waitTimeout = Objects.requireNonNull(waitTimeout, "waitTimeout must not be null");
            return this;
        }

        /**
         * A name for this kind of lock in metrics and the audit log, such as the key template
         * {@code order:{id}}. It must come from a small, fixed set: never put the resolved resource
         * here, or every order becomes a new time series.
         */
        public Builder lockName(String lockName) {
            this.lockName = Objects.requireNonNull(lockName, "lockName must not be null");
            return this;
        }

        /**
         * {@link LockMode#SHARED} for a read lock that readers hold together; {@link
         * LockMode#EXCLUSIVE} (the default) for a write lock. A reader waits for the writers that
         * came before it, a writer for everyone who came before it.
         */
        public Builder mode(LockMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode must not be null");
            return this;
        }

        /**
         * Makes this a request for one of {@code permits} permits of a semaphore: at most that many
         * holders at once, each with its own lease and token. One permit is an exclusive lock. Every
         * client must use the same number for a resource; a request that meets keys with another
         * number fails with {@link LockPermitsMismatchException}. Permits are not a fence: with
         * several holders at once, no token says which of them may write.
         *
         * @throws IllegalArgumentException when {@code permits} is below one
         */
        public Builder permits(int permits) {
            if (permits < 1) {
                throw new IllegalArgumentException("permits must be at least 1, was " + permits);
            }
            this.permits = permits;
            return this;
        }

        /**
         * Marks this acquisition as one poll of a caller that asks again and again until it gets the
         * lock, such as a leader election's follower. A poll that ends without the lock because the
         * lock stayed busy, or because its wait ran out before the store answered, changed nothing:
         * event listeners (metrics, the audit log) are not told of it, and a short poll's deadline
         * says nothing about the store's health. A poll that gets the lock, or fails before its
         * deadline, is reported as any acquisition is.
         */
        public Builder poll(boolean poll) {
            this.poll = poll;
            return this;
        }

        /**
         * @throws IllegalArgumentException when a shared request asks for more than one permit
         */
        public LockRequest build() {
            if (this.mode == LockMode.SHARED && this.permits > 1) {
                throw new IllegalArgumentException("Lock '" + this.resource + "' asks for " + this.permits
                        + " permits in mode SHARED; a semaphore's permits have no mode, so use one or the other");
            }
            return new LockRequest(this);
        }
    }
}
