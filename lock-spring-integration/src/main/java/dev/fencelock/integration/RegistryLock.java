package dev.fencelock.integration;

import dev.fencelock.FencingContext;
import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockException;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.LockRequest;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * One key's lock in a {@link FenceLockRegistry}: a local {@link ReentrantLock} decides which
 * thread of this process may go to etcd, and the first hold of that thread takes a FenceLock
 * lease that the last unlock releases.
 *
 * <p>A lease that is lost while held is never taken again behind the holder's back: re-entry
 * into it and its final unlock throw {@link LockLostException}, so callers such as
 * LockRegistryLeaderInitiator see the loss and revoke, and the next first hold gets a new token.
 */
final class RegistryLock implements FencedLock {

    /** Pause between try-locks when the client allows no waiting at all, so a long wait does not spin. */
    private static final long RETRY_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final RegistrySettings settings;

    private final String key;

    private final String resource;

    private final ReentrantLock local = new ReentrantLock();

    /** Written by the holding thread only; read by any thread that asks for the token. */
    private volatile @Nullable Holding holding;

    /** When a thread last took this lock from etcd, in wall-clock milliseconds; 0 while it never did. */
    private volatile long lastAcquiredMillis;

    /** One etcd lease held for the local holds of one thread. */
    private record Holding(LockLease lease, FencingContext.@Nullable Scope fence, Duration ttl) {}

    RegistryLock(RegistrySettings settings, String key) {
        this.settings = settings;
        this.key = key;
        this.resource = settings.keyPrefix() + key;
    }

    @Override
    public String key() {
        return this.key;
    }

    @Override
    public String resource() {
        return this.resource;
    }

    @Override
    public void lock() {
        lock(null);
    }

    @Override
    public void lock(@Nullable Duration ttl) {
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                this.local.lock();
                try {
                    enter(Long.MAX_VALUE, ttl);
                    return;
                } catch (InterruptedException ex) {
                    // lock() cannot be interrupted: remember it for the caller and wait again.
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        this.local.lockInterruptibly();
        enter(Long.MAX_VALUE, null);
    }

    @Override
    public boolean tryLock() {
        if (!this.local.tryLock()) {
            return false;
        }
        try {
            return enter(0, null);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(unit.toNanos(time)), null);
    }

    @Override
    public boolean tryLock(Duration waitTime, @Nullable Duration ttl) throws InterruptedException {
        long started = System.nanoTime();
        long waitNanos = Math.max(0, saturatedNanos(waitTime));
        if (!this.local.tryLock(waitNanos, TimeUnit.NANOSECONDS)) {
            return false;
        }
        return enter(Math.max(0, waitNanos - (System.nanoTime() - started)), ttl);
    }

    /**
     * Completes a hold for a thread that has just taken the local lock: re-entry checks that the
     * lease still stands, a first hold takes one from etcd within {@code waitNanos}
     * ({@code Long.MAX_VALUE}: no limit). The local hold is given back unless this returns true.
     */
    private boolean enter(long waitNanos, @Nullable Duration ttl) throws InterruptedException {
        if (this.local.getHoldCount() > 1) {
            Holding current = this.holding;
            if (current != null && current.lease().isValid()) {
                return true;
            }
            this.local.unlock();
            throw lost("cannot be entered again");
        }
        boolean entered = false;
        try {
            entered = acquire(waitNanos, ttl);
            return entered;
        } finally {
            if (!entered) {
                this.local.unlock();
            }
        }
    }

    private boolean acquire(long waitNanos, @Nullable Duration ttl) throws InterruptedException {
        long deadline = System.nanoTime() + Math.min(waitNanos, Long.MAX_VALUE / 2);
        Duration maxWait = this.settings.client().settings().maxWaitTimeout();
        Duration leaseTtl = leaseTtl(ttl);
        while (true) {
            long remaining = (waitNanos == Long.MAX_VALUE) ? Long.MAX_VALUE : deadline - System.nanoTime();
            Duration wait = Duration.ofNanos(Math.max(0, Math.min(remaining, saturatedNanos(maxWait))));
            // A registry lock that is not had within the time given is a false or another round, not a
            // failure: a leader election's follower asks every heartbeat, and its short rounds end
            // before a loaded etcd answers. Only what changes something reaches metrics and audit.
            LockRequest request = LockRequest.builder(this.resource)
                    .leaseTtl(leaseTtl)
                    .waitTimeout(wait)
                    .lockName(RegistrySettings.LOCK_NAME)
                    .poll(true)
                    .build();
            try {
                LockLease lease = this.settings.client().acquire(request);
                FencingContext.Scope fence = this.settings.fenceWrites() ? FencingContext.open(lease) : null;
                this.holding = new Holding(lease, fence, leaseTtl);
                this.lastAcquiredMillis = this.settings.clock().getAsLong();
                return true;
            } catch (LockAcquisitionTimeoutException busy) {
                if (waitNanos != Long.MAX_VALUE && deadline - System.nanoTime() <= 0) {
                    return false;
                }
                if (wait.isZero()) {
                    LockSupport.parkNanos(RETRY_PAUSE_NANOS);
                }
            } catch (LockException ex) {
                if (ex.getCause() instanceof InterruptedException
                        || Thread.currentThread().isInterrupted()) {
                    Thread.interrupted();
                    throw new InterruptedException("Interrupted while waiting for lock '" + this.key + "'");
                }
                throw ex;
            }
            if (Thread.interrupted()) {
                throw new InterruptedException("Interrupted while waiting for lock '" + this.key + "'");
            }
        }
    }

    /** The lease TTL an acquisition asks for, in etcd's whole seconds as the client will round it. */
    private Duration leaseTtl(@Nullable Duration requested) {
        Duration ttl = (requested != null)
                ? requested
                : (this.settings.leaseTtl() != null)
                        ? this.settings.leaseTtl()
                        : this.settings.client().settings().defaultLeaseTtl();
        return (ttl.getNano() > 0) ? Duration.ofSeconds(ttl.getSeconds() + 1) : ttl;
    }

    /**
     * Gives up one hold of the calling thread; the last one releases the etcd lock.
     *
     * @throws IllegalMonitorStateException when the calling thread does not hold the lock
     * @throws LockLostException from the last hold, when the lock had been lost meanwhile: what it
     *     protected may have been done by two holders, and their fenced writes were refused
     */
    @Override
    public void unlock() {
        if (!this.local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("Lock '" + this.key + "' is not held by thread '"
                    + Thread.currentThread().getName() + "'; only the thread that locked it may unlock it");
        }
        if (this.local.getHoldCount() > 1) {
            this.local.unlock();
            return;
        }
        Holding current = this.holding;
        this.holding = null;
        boolean released = true;
        try {
            if (current != null) {
                if (current.fence() != null) {
                    current.fence().close();
                }
                released = current.lease().release();
            }
        } finally {
            this.local.unlock();
        }
        if (!released && current != null) {
            throw new LockLostException("Lock '" + this.key + "' (resource '" + this.resource + "', token "
                    + current.lease().fencingToken() + ") had been lost before it was unlocked; writes"
                    + " fenced with its token after the loss were refused");
        }
    }

    /** Confirms the calling thread's lease with etcd and extends it. */
    void renew(@Nullable Duration ttl) {
        Holding current = this.holding;
        if (!this.local.isHeldByCurrentThread() || current == null) {
            throw new IllegalStateException("Lock '" + this.key + "' is not held by the current thread");
        }
        if (ttl != null && !leaseTtl(ttl).equals(current.ttl())) {
            throw new UnsupportedOperationException("Lock '" + this.key + "' keeps the lease TTL it was taken with ("
                    + current.ttl() + "): FenceLock's session renews it while this process lives, so renewLock(key)"
                    + " is enough; take it with lock(Duration) for another TTL");
        }
        current.lease().renew();
    }

    @Override
    public long fencingToken() {
        Holding current = this.holding;
        if (current == null) {
            throw new IllegalStateException("Lock '" + this.key + "' is not held in this process, so it has no token");
        }
        return current.lease().fencingToken();
    }

    @Override
    public Optional<FencingContext.Fence> fence() {
        Holding current = this.holding;
        return (current != null)
                ? Optional.of(
                        new FencingContext.Fence(this.resource, current.lease().fencingToken(), current.lease()))
                : Optional.empty();
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return this.local.isHeldByCurrentThread();
    }

    /**
     * Whether no thread holds or waits for it, and it was last acquired before {@code millis}:
     * obtaining it and unlocking it are not acquisitions.
     */
    boolean isUnusedSince(long millis) {
        return !this.local.isLocked() && !this.local.hasQueuedThreads() && this.lastAcquiredMillis < millis;
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("FenceLock registry locks do not support conditions");
    }

    private LockLostException lost(String what) {
        Holding current = this.holding;
        String token = (current != null) ? ", token " + current.lease().fencingToken() : "";
        return new LockLostException("Lock '" + this.key + "' (resource '" + this.resource + "'" + token
                + ") was lost while this thread held it and " + what + "; unlock it, then lock it anew");
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    @Override
    public String toString() {
        Holding current = this.holding;
        return "FencedLock[key=" + this.key + ", resource=" + this.resource
                + (current != null ? ", token=" + current.lease().fencingToken() : ", free here") + "]";
    }
}
