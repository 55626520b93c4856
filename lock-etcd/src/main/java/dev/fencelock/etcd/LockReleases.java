package dev.fencelock.etcd;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Gives a held lock back: its key goes with a delete guarded by its create revision, so a late or
 * retried release can never delete a newer holder's key, and a local waiter next in line is handed
 * the lock when the delete commits.
 */
final class LockReleases {

    private final EtcdCalls calls;

    private final SessionLeases sessions;

    private final ResourceWatches watches;

    private final DeleteBatch deleteBatch;

    private final PutBatch puts;

    private final GuardedDeletes deletes;

    private final Map<String, EtcdLock> held;

    LockReleases(
            EtcdCalls calls,
            SessionLeases sessions,
            ResourceWatches watches,
            DeleteBatch deleteBatch,
            PutBatch puts,
            GuardedDeletes deletes,
            Map<String, EtcdLock> held) {
        this.calls = calls;
        this.sessions = sessions;
        this.watches = watches;
        this.deleteBatch = deleteBatch;
        this.puts = puts;
        this.deletes = deletes;
        this.held = held;
    }

    /**
     * Deletes the lock's key now (in the next shared delete Txn); completes once etcd answered. The
     * removal is registered before the lock is forgotten and its delete submitted, so a retry with
     * the same request id never finds the key neither held nor on its way out.
     */
    CompletableFuture<Boolean> release(EtcdLock lock) {
        // A holder frozen past its session's deadline learns here that its locks are lost.
        this.sessions.expireIfPastDeadline(lock.session);
        DeleteRequest request = new DeleteRequest(lock.key, lock.fencingToken(), this.watches.successorOf(lock));
        CompletableFuture<Void> settled = this.deletes.registerRemoval(lock.key);
        forget(lock);
        return this.deletes.retriedOnFailure(request, lock.session, this.deleteBatch.submit(request), settled);
    }

    /**
     * Releases without sending at once: the delete rides on this client's next acquisition Txn,
     * or goes on its own after {@link PutBatch#RIDE_LINGER_NANOS}, or after {@link
     * PutBatch#HAND_OFF_LINGER_NANOS} when a local waiter is next in line (it is handed the lock
     * when the Txn commits, as with {@link #release}).
     */
    CompletableFuture<Boolean> releaseDeferred(EtcdLock lock) {
        this.sessions.expireIfPastDeadline(lock.session);
        if (this.calls.isClosed()) {
            return release(lock);
        }
        Successor next = this.watches.successorOf(lock);
        CompletableFuture<Void> settled = this.deletes.registerRemoval(lock.key);
        forget(lock);
        DeleteRequest request = new DeleteRequest(lock.key, lock.fencingToken(), next);
        return this.deletes.retriedOnFailure(request, lock.session, this.puts.defer(request), settled);
    }

    private void forget(EtcdLock lock) {
        lock.markReleased();
        this.held.remove(lock.key, lock);
        lock.session.locks.remove(lock);
    }
}
