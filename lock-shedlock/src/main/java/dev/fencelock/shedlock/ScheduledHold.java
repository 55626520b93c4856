package dev.fencelock.shedlock;

import dev.fencelock.FencingContext;
import dev.fencelock.LockException;
import dev.fencelock.LockLease;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One FenceLock acquisition behind a ShedLock lock, across its extensions.
 *
 * <p>The session keeps the lease alive for as long as this process lives, so ShedLock's
 * deadlines are timers here: the lease is released at {@code lockAtMostUntil} even if the task
 * still runs, and an unlock before {@code lockAtLeastUntil} only schedules the release. Every
 * extension returns a new {@link SimpleLock} on the same lease and token; only the newest one may
 * be unlocked or extended, as ShedLock's contract says.
 */
final class ScheduledHold {

    private static final Logger logger = LoggerFactory.getLogger(FenceLockProvider.class);

    private final LockLease lease;

    private final String name;

    private final ScheduledExecutorService deadlines;

    private final FencingContext.@Nullable Scope fence;

    private final Thread lockingThread;

    /** The provider's holds whose lease is not released yet, so closing the provider can release them. */
    private final Set<ScheduledHold> unreleased;

    /** The pending release: at {@code lockAtMostUntil} while the task runs, at {@code lockAtLeastUntil} after. */
    private @Nullable ScheduledFuture<?> release;

    /** Which pending release is current: a timer that fired while it was being replaced must not run. */
    private long releaseGeneration;

    private Instant lockAtMostUntil;

    /** Unlocked by its task, released at the deadline, or found lost: no extension any more. */
    private boolean ended;

    private ScheduledHold(
            LockLease lease,
            String name,
            ScheduledExecutorService deadlines,
            FencingContext.@Nullable Scope fence,
            Set<ScheduledHold> unreleased) {
        this.lease = lease;
        this.name = name;
        this.deadlines = deadlines;
        this.fence = fence;
        this.unreleased = unreleased;
        this.lockingThread = Thread.currentThread();
        this.lockAtMostUntil = Instant.MIN;
    }

    /**
     * Starts holding {@code lease} for {@code configuration}, listed in {@code unreleased} until its
     * lease is released; pushes its fence on this thread if asked.
     */
    static FencedSimpleLock start(
            LockLease lease,
            LockConfiguration configuration,
            ScheduledExecutorService deadlines,
            boolean pushFence,
            Set<ScheduledHold> unreleased) {
        FencingContext.Scope fence = pushFence ? FencingContext.open(lease) : null;
        ScheduledHold hold = new ScheduledHold(lease, configuration.getName(), deadlines, fence, unreleased);
        unreleased.add(hold);
        synchronized (hold) {
            hold.lockAtMostUntil = configuration.getLockAtMostUntil();
            hold.releaseAt(hold.lockAtMostUntil, "lockAtMostUntil");
        }
        return hold.new Link(configuration);
    }

    private void releaseAt(Instant at, String why) {
        cancelRelease();
        long generation = this.releaseGeneration;
        long delayNanos = Duration.between(ClockProvider.now(), at).toNanos();
        this.release = this.deadlines.schedule(
                () -> releaseOnTimer(generation, why), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }

    private void cancelRelease() {
        this.releaseGeneration++;
        if (this.release != null) {
            this.release.cancel(false);
            this.release = null;
        }
    }

    private synchronized void releaseOnTimer(long generation, String why) {
        if (generation != this.releaseGeneration) {
            return;
        }
        this.ended = true;
        logger.debug("Releasing ShedLock lock '{}' at {}", this.name, why);
        // The timer thread serves every lock of the provider: it does not wait for the store.
        releaseLease(false);
    }

    /** Releases the lease now, cutting {@code lockAtLeastFor} short: the provider is closing. */
    synchronized void releaseOnClose() {
        this.ended = true;
        cancelRelease();
        releaseLease(false);
    }

    private void releaseLease(boolean waitForTheStore) {
        this.unreleased.remove(this);
        if (waitForTheStore) {
            this.lease.release();
        } else {
            this.lease.releaseAsync();
        }
    }

    private synchronized boolean isValid() {
        return !this.ended && this.lease.isValid() && ClockProvider.now().isBefore(this.lockAtMostUntil);
    }

    private synchronized void unlock(LockConfiguration configuration) {
        closeFence();
        if (this.ended) {
            logger.debug(
                    "ShedLock lock '{}' had already been released (lockAtMostUntil passed, or the provider closed)",
                    this.name);
            return;
        }
        this.ended = true;
        Instant lockAtLeastUntil = configuration.getLockAtLeastUntil();
        if (lockAtLeastUntil.isAfter(ClockProvider.now())) {
            releaseAt(lockAtLeastUntil, "lockAtLeastUntil");
        } else {
            cancelRelease();
            // Waits for the delete: whoever tries next, here or elsewhere, finds the lock free.
            releaseLease(true);
        }
    }

    /** Confirms the lease with the store and moves the deadline; false if the lock is gone or past it. */
    private synchronized boolean extend(LockConfiguration configuration) {
        if (this.ended) {
            return false;
        }
        if (!ClockProvider.now().isBefore(this.lockAtMostUntil)) {
            // Past the deadline whose timer is only about to fire: release now, so no one sees it held.
            this.ended = true;
            cancelRelease();
            releaseLease(true);
            return false;
        }
        try {
            this.lease.renew();
        } catch (LockException ex) {
            logger.warn("ShedLock lock '{}' could not be extended: {}", this.name, ex.getMessage());
            return false;
        }
        this.lockAtMostUntil = configuration.getLockAtMostUntil();
        releaseAt(this.lockAtMostUntil, "lockAtMostUntil");
        return true;
    }

    /** Pops the fence, which only the thread that pushed it can do. */
    private void closeFence() {
        if (this.fence == null) {
            return;
        }
        if (Thread.currentThread() == this.lockingThread) {
            this.fence.close();
        } else {
            logger.warn(
                    "ShedLock lock '{}' was unlocked on thread '{}', not on '{}' that locked it: its fence (token {})"
                            + " stays in that thread's FencingContext, where fenced writes now fail; unlock on the"
                            + " locking thread or build the provider with pushFence(false)",
                    this.name,
                    Thread.currentThread().getName(),
                    this.lockingThread.getName(),
                    this.lease.fencingToken());
        }
    }

    /** One lock of the chain that extensions make; only the newest may be used. */
    private final class Link implements FencedSimpleLock {

        private final LockConfiguration configuration;

        /** Whether this link was unlocked or extended (successfully or not). */
        private boolean used;

        private boolean extensionFailed;

        Link(LockConfiguration configuration) {
            this.configuration = configuration;
        }

        @Override
        public void unlock() {
            synchronized (ScheduledHold.this) {
                if (this.used && !this.extensionFailed) {
                    throw new IllegalStateException("ShedLock lock '" + name
                            + "' was already unlocked or extended; use the lock extend returned");
                }
                boolean failedEarlier = this.extensionFailed;
                this.used = true;
                this.extensionFailed = false;
                // ShedLock's executor unlocks the lock whose extension failed: end the hold, then say so.
                ScheduledHold.this.unlock(this.configuration);
                if (failedEarlier) {
                    throw new IllegalStateException(
                            "ShedLock lock '" + name + "' could not be extended earlier; it has been released now");
                }
            }
        }

        @Override
        public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
            synchronized (ScheduledHold.this) {
                if (this.used) {
                    throw new IllegalStateException("ShedLock lock '" + name
                            + "' was already unlocked or extended; use the lock extend returned");
                }
                LockConfiguration extended =
                        new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor);
                this.used = true;
                if (!ScheduledHold.this.extend(extended)) {
                    this.extensionFailed = true;
                    return Optional.empty();
                }
                return Optional.of(new Link(extended));
            }
        }

        @Override
        public String resource() {
            return lease.resource();
        }

        @Override
        public long fencingToken() {
            return lease.fencingToken();
        }

        @Override
        public Instant lockAtMostUntil() {
            return this.configuration.getLockAtMostUntil();
        }

        @Override
        public boolean isValid() {
            synchronized (ScheduledHold.this) {
                return !this.used && ScheduledHold.this.isValid();
            }
        }

        @Override
        public String toString() {
            return "FencedSimpleLock[name=" + name + ", resource=" + resource() + ", token=" + fencingToken()
                    + ", lockAtMostUntil=" + lockAtMostUntil() + "]";
        }
    }
}
