package dev.fencelock.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Leaves no key behind: guarded deletes retried in the background while their session lives, and
 * abandon markers for puts whose outcome is unknown. Owns the clean-ups scheduled for such puts,
 * which a retry with the same request id cancels to adopt the key instead.
 */
final class GuardedDeletes {

    private final EtcdCalls calls;

    private final DeleteBatch deletes;

    /** The locks this backend holds, by key: never deleted or abandoned from here. */
    private final Map<String, EtcdLock> held;

    private final Map<String, ScheduledFuture<?>> pendingCleanups = new ConcurrentHashMap<>();

    GuardedDeletes(EtcdCalls calls, DeleteBatch deletes, Map<String, EtcdLock> held) {
        this.calls = calls;
        this.deletes = deletes;
        this.held = held;
    }

    /** Deletes {@code key} if its create revision is still {@code revision}, retrying on failure. */
    CompletableFuture<Boolean> deleteInBackground(String key, long revision, @Nullable SessionLease session) {
        DeleteRequest request = new DeleteRequest(key, revision, null);
        return retriedOnFailure(request, session, this.deletes.submit(request));
    }

    /**
     * Returns {@code deleted}, the first try of {@code request}; if it fails, the delete is retried
     * in the background while the session lives (once it expires, etcd removes the key itself).
     */
    CompletableFuture<Boolean> retriedOnFailure(
            DeleteRequest request, @Nullable SessionLease session, CompletableFuture<Boolean> deleted) {
        deleted.whenComplete((ok, failure) -> {
            if (failure != null) {
                retryDelete(request.key(), request.revision(), session, 1);
            }
        });
        return deleted;
    }

    private void retryDelete(String key, long revision, @Nullable SessionLease session, int attempt) {
        if (this.calls.isClosed() || (session != null && session.isExpired())) {
            return;
        }
        long delay = Math.min(TimeUnit.SECONDS.toNanos(5), TimeUnit.MILLISECONDS.toNanos(200) << Math.min(attempt, 5));
        this.calls
                .scheduler()
                .schedule(
                        () -> this.deletes
                                .deleteGuarded(new DeleteRequest(key, revision, null))
                                .whenComplete((deleted, failure) -> {
                                    if (failure != null) {
                                        retryDelete(key, revision, session, attempt + 1);
                                    }
                                }),
                        delay,
                        TimeUnit.NANOSECONDS);
    }

    /**
     * Cancels the clean-up an earlier attempt with this key left scheduled: a retry with the same
     * request id adopts the key instead.
     */
    void adopt(String key) {
        ScheduledFuture<?> pending = this.pendingCleanups.remove(key);
        if (pending != null) {
            pending.cancel(false);
        }
    }

    /** Abandons {@code key} after {@code delayNanos}, unless a retry adopts it first. */
    void abandonLater(String key, ByteSequence marker, SessionLease session, long delayNanos) {
        ScheduledFuture<?> cleanup = this.calls
                .scheduler()
                .schedule(
                        () -> {
                            this.pendingCleanups.remove(key);
                            abandonKey(key, marker, session);
                        },
                        delayNanos,
                        TimeUnit.NANOSECONDS);
        this.pendingCleanups.put(key, cleanup);
    }

    /**
     * Abandons a key whose put had an unknown outcome. One Txn writes the abandoned marker, which
     * the acquire Txn checks, so a put that reaches etcd later can no longer create the key; if
     * the key was created already, it is then deleted by its create revision. Whichever of put
     * and abandon commits first, no key is left behind.
     */
    private void abandonKey(String key, ByteSequence marker, SessionLease session) {
        if (this.held.containsKey(key) || this.calls.isClosed()) {
            return;
        }
        ByteSequence keyBytes = EtcdCalls.bytes(key);
        PutOption onSession = PutOption.builder().withLeaseId(session.leaseId).build();
        CompletableFuture<TxnResponse> txn = this.calls
                .client()
                .getKVClient()
                .txn()
                .Then(Op.put(marker, EtcdCalls.bytes("abandoned"), onSession), Op.get(keyBytes, GetOption.DEFAULT))
                .commit();
        this.calls
                .timed(txn, "abandoning '" + key + "'", this.calls.attemptTimeout())
                .whenComplete((response, failure) -> {
                    if (failure != null) {
                        // Once the session is gone, so is its lease: a late put would be refused by etcd anyway.
                        if (!session.isExpired() && !this.calls.isClosed()) {
                            this.calls
                                    .scheduler()
                                    .schedule(() -> abandonKey(key, marker, session), 1, TimeUnit.SECONDS);
                        }
                        return;
                    }
                    for (KeyValue kv : response.getGetResponses().get(0).getKvs()) {
                        if (kv.getLease() == session.leaseId && !this.held.containsKey(key)) {
                            deleteInBackground(key, kv.getCreateRevision(), session);
                        }
                    }
                });
    }

    /** Cancels every scheduled clean-up; the backend is closing and its sessions are revoked. */
    void cancelPending() {
        this.pendingCleanups.values().forEach(task -> task.cancel(false));
    }
}
