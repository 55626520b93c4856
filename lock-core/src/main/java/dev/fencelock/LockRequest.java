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
 */
public final class LockRequest {

    private final String resource;

    private final @Nullable String requestId;

    private final @Nullable Duration leaseTtl;

    private final @Nullable Duration waitTimeout;

    private final @Nullable String lockName;

    private LockRequest(Builder builder) {
        this.resource = builder.resource;
        this.requestId = builder.requestId;
        this.leaseTtl = builder.leaseTtl;
        this.waitTimeout = builder.waitTimeout;
        this.lockName = builder.lockName;
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

    @Override
    public String toString() {
        return "LockRequest[resource=" + this.resource + ", requestId=" + this.requestId + ", leaseTtl=" + this.leaseTtl
                + ", waitTimeout=" + this.waitTimeout + "]";
    }

    /** Builds a {@link LockRequest}; values are checked against the client's bounds when it is used. */
    public static final class Builder {

        private final String resource;

        private @Nullable String requestId;

        private @Nullable Duration leaseTtl;

        private @Nullable Duration waitTimeout;

        private @Nullable String lockName;

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

        public LockRequest build() {
            return new LockRequest(this);
        }
    }
}
