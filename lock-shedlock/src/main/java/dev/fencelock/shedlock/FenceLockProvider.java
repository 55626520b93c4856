package dev.fencelock.shedlock;

import dev.fencelock.FencingContext;
import dev.fencelock.LockClient;
import dev.fencelock.LockRequest;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ShedLock {@link ExtensibleLockProvider} on a FenceLock {@link LockClient}: {@code @SchedulerLock}
 * tasks are locked on etcd, and their writes carry a fencing token.
 *
 * <p>How ShedLock's settings map to FenceLock:
 *
 * <ul>
 *   <li>{@code lockAtMostFor} is a deadline even while the holder lives: the lock is released at
 *       {@code lockAtMostUntil} whether or not the task has finished. The task is not interrupted,
 *       but its fence stops being valid, so fenced writes after the deadline are refused.
 *   <li>{@code lockAtLeastFor} delays the release: an unlock before {@code lockAtLeastUntil} only
 *       schedules it.
 *   <li>Both deadlines are timers of this process, precise to the millisecond. What ends the lock
 *       when the holder's process dies is its etcd lease: the lease TTL is this provider's {@link
 *       Builder#leaseTtl(Duration) lease TTL}, shortened to {@code lockAtMostFor} and lengthened to
 *       {@code lockAtLeastFor}, in whole seconds rounded up (etcd leases are whole seconds, at
 *       least one: a {@code lockAtMostFor} of 200 ms gets a one-second lease).
 *   <li>Deadlines above the client's {@code max-lease-ttl} are accepted, since they are timers;
 *       only a {@code lockAtLeastFor} above it fails, with an {@link IllegalArgumentException}
 *       that names the lock and the setting, because the lease could not outlive a crash for that
 *       long.
 *   <li>{@link SimpleLock#extend extend} confirms the lease with etcd and moves the deadline; the
 *       lease TTL stays the one chosen when the lock was taken.
 * </ul>
 *
 * <p>{@link #lock} puts the lock's fence on {@link FencingContext} of the calling thread until
 * {@link SimpleLock#unlock()} on that same thread, as ShedLock's executor does, so FenceLock's
 * JDBC guard fences the task's writes. Build the provider with {@link Builder#pushFence(boolean)
 * pushFence(false)} to hand locks to other threads. The returned locks are {@link
 * FencedSimpleLock}s.
 */
public final class FenceLockProvider implements ExtensibleLockProvider, AutoCloseable {

    /** Prefix of the FenceLock resource of every ShedLock lock name, unless another is configured. */
    public static final String DEFAULT_RESOURCE_PREFIX = "shedlock:";

    private static final Logger logger = LoggerFactory.getLogger(FenceLockProvider.class);

    private final LockClient client;

    private final String resourcePrefix;

    private final Duration leaseTtl;

    private final boolean pushFence;

    private final ScheduledExecutorService deadlines;

    private final Set<ScheduledHold> unreleased = ConcurrentHashMap.newKeySet();

    /** A provider with the default prefix, the client's default lease TTL, and fences pushed. */
    public FenceLockProvider(LockClient client) {
        this(builder(client));
    }

    private FenceLockProvider(Builder builder) {
        this.client = builder.client;
        this.resourcePrefix = builder.resourcePrefix;
        Duration ttl = (builder.leaseTtl != null)
                ? builder.leaseTtl
                : this.client.settings().defaultLeaseTtl();
        if (ttl.compareTo(Duration.ofSeconds(1)) < 0
                || ttl.compareTo(this.client.settings().maxLeaseTtl()) > 0) {
            throw new IllegalArgumentException("Lease TTL " + ttl + " of the ShedLock provider must be between 1s and"
                    + " the client's max-lease-ttl " + this.client.settings().maxLeaseTtl());
        }
        this.leaseTtl = ttl;
        this.pushFence = builder.pushFence;
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "fencelock-shedlock-deadlines");
            thread.setDaemon(true);
            return thread;
        });
        // An extended or unlocked lock cancels its timer: drop it from the queue instead of keeping it for hours.
        timer.setRemoveOnCancelPolicy(true);
        this.deadlines = Executors.unconfigurableScheduledExecutorService(timer);
    }

    public static Builder builder(LockClient client) {
        return new Builder(client);
    }

    /**
     * Takes the lock if no one holds it, without waiting.
     *
     * @return the lock, a {@link FencedSimpleLock}; empty when another holder has it, or when its
     *     {@code lockAtMostUntil} has already passed
     * @throws IllegalArgumentException when {@code lockAtLeastFor} is above the client's max-lease-ttl
     * @throws dev.fencelock.LockBackendUnavailableException when etcd could not be reached in time
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        Objects.requireNonNull(configuration, "configuration must not be null");
        if (this.deadlines.isShutdown()) {
            throw new IllegalStateException(
                    "FenceLockProvider is closed; lock '" + configuration.getName() + "' was not taken");
        }
        if (!configuration.getLockAtMostUntil().isAfter(ClockProvider.now())) {
            logger.warn(
                    "ShedLock lock '{}' was not taken: its lockAtMostUntil {} had passed when it was asked for",
                    configuration.getName(),
                    configuration.getLockAtMostUntil());
            return Optional.empty();
        }
        Duration ttl =
                leaseTtl(configuration, this.leaseTtl, this.client.settings().maxLeaseTtl());
        LockRequest request = LockRequest.builder(this.resourcePrefix + configuration.getName())
                .leaseTtl(ttl)
                .lockName(configuration.getName())
                .build();
        return this.client.tryAcquire(request).map(lease -> (SimpleLock)
                ScheduledHold.start(lease, configuration, this.deadlines, this.pushFence, this.unreleased));
    }

    /**
     * The lease TTL of a lock: the provider's, shortened to {@code lockAtMostFor} (a dead holder
     * should not outlast it) and lengthened to {@code lockAtLeastFor} (nor fall short of it), in
     * whole seconds rounded up.
     */
    static Duration leaseTtl(LockConfiguration configuration, Duration providerTtl, Duration maxLeaseTtl) {
        Duration ttl = configuration.getLockAtMostFor().compareTo(providerTtl) < 0
                ? configuration.getLockAtMostFor()
                : providerTtl;
        if (configuration.getLockAtLeastFor().compareTo(ttl) > 0) {
            ttl = configuration.getLockAtLeastFor();
        }
        long seconds = Math.max(1, ttl.getSeconds() + (ttl.getNano() > 0 ? 1 : 0));
        Duration whole = Duration.ofSeconds(seconds);
        if (whole.compareTo(maxLeaseTtl) > 0) {
            throw new IllegalArgumentException("lockAtLeastFor " + configuration.getLockAtLeastFor()
                    + " of ShedLock lock '"
                    + configuration.getName() + "' needs a lease that long, so that the lock outlives a crash of its"
                    + " holder, but FenceLock's max-lease-ttl is " + maxLeaseTtl
                    + ": raise fencelock.max-lease-ttl or shorten lockAtLeastFor");
        }
        return whole;
    }

    /**
     * Stops the deadline timers and releases every lock this provider still holds, those waiting
     * for their {@code lockAtLeastUntil} too: without the timers nothing else would, and the
     * client's session would keep them alive for as long as it runs.
     */
    @Override
    public void close() {
        this.deadlines.shutdownNow();
        for (ScheduledHold hold : List.copyOf(this.unreleased)) {
            hold.releaseOnClose();
        }
    }

    @Override
    public String toString() {
        return "FenceLockProvider[resourcePrefix=" + this.resourcePrefix + ", leaseTtl=" + this.leaseTtl
                + ", pushFence=" + this.pushFence + "]";
    }

    /** Builds a {@link FenceLockProvider}; start with {@link FenceLockProvider#builder(LockClient)}. */
    public static final class Builder {

        private final LockClient client;

        private String resourcePrefix = DEFAULT_RESOURCE_PREFIX;

        private @Nullable Duration leaseTtl;

        private boolean pushFence = true;

        private Builder(LockClient client) {
            this.client = Objects.requireNonNull(client, "client must not be null");
        }

        /**
         * Prefix of the FenceLock resource of each lock name ({@value FenceLockProvider#DEFAULT_RESOURCE_PREFIX}), so
         * that ShedLock's names cannot collide with other locks of the application.
         */
        public Builder resourcePrefix(String resourcePrefix) {
            this.resourcePrefix = Objects.requireNonNull(resourcePrefix, "resourcePrefix must not be null");
            return this;
        }

        /**
         * How long a lock outlives its holder's process, before {@code lockAtMostFor} and {@code
         * lockAtLeastFor} bound it (the client's default lease TTL); between 1s and the client's
         * max-lease-ttl.
         */
        public Builder leaseTtl(Duration leaseTtl) {
            this.leaseTtl = Objects.requireNonNull(leaseTtl, "leaseTtl must not be null");
            return this;
        }

        /**
         * Whether {@link FenceLockProvider#lock} puts the lock's fence on {@link FencingContext} of
         * the calling thread until the lock is unlocked on that thread (true).
         */
        public Builder pushFence(boolean pushFence) {
            this.pushFence = pushFence;
            return this;
        }

        /**
         * Builds the provider.
         *
         * @throws IllegalArgumentException when the lease TTL is outside the client's bounds
         */
        public FenceLockProvider build() {
            return new FenceLockProvider(this);
        }
    }
}
