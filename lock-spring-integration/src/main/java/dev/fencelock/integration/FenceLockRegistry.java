package dev.fencelock.integration;

import dev.fencelock.LockClient;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;

/**
 * A Spring Integration lock registry on FenceLock: each key's {@link FencedLock} is a FenceLock
 * lock on etcd, with a fencing token.
 *
 * <p>Locks follow Spring Integration's distributed locks: {@link #obtain(Object)} returns the same
 * lock for the same key (until {@link #expireUnusedOlderThan(long)} drops it), a lock is
 * re-entrant per thread and held by one thread at a time, and only that thread may unlock it.
 * The first hold of a thread takes a lease on etcd; the last unlock releases it. FenceLock's
 * session keeps leases alive while this process lives, so no renewal task is needed; {@link
 * #renewLock(Object)} confirms the lock with etcd.
 *
 * <p>Leader election: a {@code LockRegistryLeaderInitiator} on this registry elects a leader per
 * role, the role being the lock key. A leader that loses its lease finds out at its next heartbeat
 * (re-entry into a lost lock throws {@link dev.fencelock.LockLostException}) and is revoked; the
 * next leader gets a larger token. Read the leader's token from the lock: {@code
 * registry.obtain(event.getRole()).fencingToken()}, or have grants carry it with {@link
 * FenceLockLeaderEventPublisher}.
 */
public final class FenceLockRegistry implements ExpirableLockRegistry<FencedLock>, RenewableLockRegistry<FencedLock> {

    /** Prefix of each key's FenceLock resource, unless another is configured. */
    public static final String DEFAULT_KEY_PREFIX = "integration:";

    private final RegistrySettings settings;

    private final ConcurrentMap<String, RegistryLock> locks = new ConcurrentHashMap<>();

    /** A registry with the default key prefix and lease TTL, fencing the writes of holding threads. */
    public FenceLockRegistry(LockClient client) {
        this(builder(client));
    }

    private FenceLockRegistry(Builder builder) {
        this.settings = new RegistrySettings(
                builder.client, builder.keyPrefix, builder.leaseTtl, builder.fenceWrites, builder.clock);
    }

    public static Builder builder(LockClient client) {
        return new Builder(client);
    }

    /**
     * The lock of {@code lockKey}, a {@link String}.
     *
     * @throws IllegalArgumentException when the key is not a string
     */
    @Override
    public FencedLock obtain(Object lockKey) {
        String key = key(lockKey);
        return this.locks.computeIfAbsent(key, k -> new RegistryLock(this.settings, k));
    }

    /**
     * Forgets the locks that no thread holds or waits for and that were last acquired more than
     * {@code age} ms ago (or never): obtaining a lock and unlocking it do not count as use.
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long before = this.settings.clock().getAsLong() - age;
        this.locks.values().removeIf(lock -> lock.isUnusedSince(before));
    }

    /**
     * Confirms with etcd that the calling thread still holds the lock of {@code lockKey}, and
     * extends its lease.
     *
     * @throws IllegalStateException when the calling thread does not hold it
     * @throws dev.fencelock.LockLostException when it is gone
     */
    @Override
    public void renewLock(Object lockKey) {
        heldLock(lockKey).renew(null);
    }

    /**
     * Same as {@link #renewLock(Object)}; a lease keeps the TTL it was taken with, so {@code ttl}
     * must be that TTL.
     *
     * @throws UnsupportedOperationException when {@code ttl} differs from the lease's TTL
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        heldLock(lockKey).renew(Objects.requireNonNull(ttl, "ttl must not be null"));
    }

    /** Not needed: FenceLock's session keeps the leases of held locks alive. */
    @Override
    public void setRenewalTaskScheduler(TaskScheduler renewalTaskScheduler) {}

    private RegistryLock heldLock(Object lockKey) {
        RegistryLock lock = this.locks.get(key(lockKey));
        if (lock == null || !lock.isHeldByCurrentThread()) {
            throw new IllegalStateException("The current thread does not hold lock '" + lockKey + "'");
        }
        return lock;
    }

    private static String key(Object lockKey) {
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("Lock keys of a FenceLockRegistry are strings, got "
                    + (lockKey == null ? "null" : lockKey.getClass().getName()));
        }
        return key;
    }

    @Override
    public String toString() {
        return "FenceLockRegistry[keyPrefix=" + this.settings.keyPrefix() + ", leaseTtl=" + this.settings.leaseTtl()
                + ", fenceWrites=" + this.settings.fenceWrites() + "]";
    }

    /** Builds a {@link FenceLockRegistry}; start with {@link FenceLockRegistry#builder(LockClient)}. */
    public static final class Builder {

        private final LockClient client;

        private String keyPrefix = DEFAULT_KEY_PREFIX;

        private @Nullable Duration leaseTtl;

        private boolean fenceWrites = true;

        private LongSupplier clock = System::currentTimeMillis;

        private Builder(LockClient client) {
            this.client = Objects.requireNonNull(client, "client must not be null");
        }

        /** Prefix of each key's resource ({@value FenceLockRegistry#DEFAULT_KEY_PREFIX}). */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
            return this;
        }

        /**
         * Lease TTL of locks taken without one (the client's default): how long a lock outlives
         * its holder's process, and so how long a dead leader keeps the others waiting.
         */
        public Builder leaseTtl(Duration leaseTtl) {
            this.leaseTtl = Objects.requireNonNull(leaseTtl, "leaseTtl must not be null");
            return this;
        }

        /** Whether a thread holding a lock gets its fence on {@code FencingContext} until the last unlock (true). */
        public Builder fenceWrites(boolean fenceWrites) {
            this.fenceWrites = fenceWrites;
            return this;
        }

        /** The wall clock that dates acquisitions for {@link #expireUnusedOlderThan(long)}; for tests. */
        Builder clock(LongSupplier millis) {
            this.clock = Objects.requireNonNull(millis, "millis must not be null");
            return this;
        }

        /**
         * @throws IllegalArgumentException when the lease TTL is below one second or above the
         *     client's {@code max-lease-ttl}: every lock of the registry would be refused
         */
        public FenceLockRegistry build() {
            if (this.leaseTtl != null) {
                checkLeaseTtl(this.leaseTtl, this.client.settings().maxLeaseTtl());
            }
            return new FenceLockRegistry(this);
        }

        private static void checkLeaseTtl(Duration leaseTtl, Duration max) {
            // As etcd sees it: whole seconds, a fraction rounded up.
            Duration asked = (leaseTtl.getNano() > 0) ? Duration.ofSeconds(leaseTtl.getSeconds() + 1) : leaseTtl;
            if (asked.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("Lease TTL " + leaseTtl + " of the FenceLockRegistry is below one"
                        + " second; etcd leases are whole seconds (fencelock.integration.lease-ttl)");
            }
            if (asked.compareTo(max) > 0) {
                throw new IllegalArgumentException("Lease TTL " + leaseTtl + " of the FenceLockRegistry exceeds the"
                        + " lock client's maximum " + max + ", so every lock of the registry would be refused. Lower"
                        + " fencelock.integration.lease-ttl or raise fencelock.max-lease-ttl.");
            }
        }
    }
}
