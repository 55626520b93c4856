package dev.fencelock;

import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockBackend;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A backend whose answers the test gives: every acquire, renew and release call is recorded and
 * returns a future the test completes, so the client's side of each race can be played in order.
 */
final class ScriptedLockBackend implements LockBackend {

    /** Every acquire call, in order, with the future it returned. */
    final List<PendingAcquire> acquires = new CopyOnWriteArrayList<>();

    /** Locks passed to {@link #release}, in order. */
    final List<BackendLock> released = new CopyOnWriteArrayList<>();

    /** Locks passed to {@link #releaseDeferred}, in order. */
    final List<BackendLock> releasedDeferred = new CopyOnWriteArrayList<>();

    /** Locks passed to {@link #renew}, in order. */
    final List<BackendLock> renewed = new CopyOnWriteArrayList<>();

    final AtomicInteger closeCalls = new AtomicInteger();

    private final AtomicLong tokens = new AtomicLong(100);

    /** What the next release or deferred release returns; a new completed {@code true} when unset. */
    volatile CompletableFuture<Boolean> nextDeletion;

    /** What the next renewal returns; a deadline a minute ahead when unset. */
    volatile CompletableFuture<Long> nextRenewal;

    /** Whether acquire futures ignore cancel, like a backend whose write is already on its way. */
    volatile boolean ignoreCancel;

    @Override
    public CompletableFuture<BackendLock> acquire(AcquireCommand command) {
        CompletableFuture<BackendLock> future =
                this.ignoreCancel ? new UncancellableFuture<>() : new CompletableFuture<>();
        this.acquires.add(new PendingAcquire(command, future));
        return future;
    }

    /** Grants the {@code index}th acquire a new lock with a growing token, and returns that lock. */
    ScriptedLock grant(int index) {
        PendingAcquire pending = this.acquires.get(index);
        ScriptedLock lock = new ScriptedLock(pending.command(), this.tokens.incrementAndGet());
        pending.future().complete(lock);
        return lock;
    }

    /** Grants the {@code index}th acquire a lock it already granted, as a retry of the same request id gets. */
    void grant(int index, BackendLock lock) {
        this.acquires.get(index).future().complete(lock);
    }

    @Override
    public CompletableFuture<Long> renew(BackendLock lock) {
        this.renewed.add(lock);
        CompletableFuture<Long> renewal = this.nextRenewal;
        return (renewal != null)
                ? renewal
                : CompletableFuture.completedFuture(System.nanoTime() + TimeUnit.MINUTES.toNanos(1));
    }

    @Override
    public CompletableFuture<Boolean> release(BackendLock lock) {
        this.released.add(lock);
        return deletion(lock);
    }

    @Override
    public CompletableFuture<Boolean> releaseDeferred(BackendLock lock) {
        this.releasedDeferred.add(lock);
        return deletion(lock);
    }

    private CompletableFuture<Boolean> deletion(BackendLock lock) {
        lock.markReleased();
        CompletableFuture<Boolean> deletion = this.nextDeletion;
        return (deletion != null) ? deletion : CompletableFuture.completedFuture(true);
    }

    @Override
    public String describe() {
        return "scripted";
    }

    @Override
    public void close() {
        this.closeCalls.incrementAndGet();
    }

    record PendingAcquire(AcquireCommand command, CompletableFuture<BackendLock> future) {}

    /** A lock valid for a minute unless the test moves its deadline. */
    static final class ScriptedLock extends BackendLock {

        volatile long validUntilNanos = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);

        ScriptedLock(AcquireCommand command, long token) {
            super(command.resource(), command.requestId(), 7L, token, command.kind());
        }

        @Override
        public long validUntilNanos() {
            return this.validUntilNanos;
        }
    }

    private static final class UncancellableFuture<T> extends CompletableFuture<T> {

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return false;
        }
    }
}
