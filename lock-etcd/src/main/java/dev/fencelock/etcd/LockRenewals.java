package dev.fencelock.etcd;

import dev.fencelock.LockLostException;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.WriteOperation;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * An explicit {@code renew()} of a held lock: confirms with a linearizable read that its key is
 * still the one it created, and keeps its session lease alive once, in parallel (timed as a
 * {@link WriteOperation#RENEW} write; a failure of either counts as a failed renewal). A key that
 * is gone marks the lock lost; a lease that etcd no longer knows expires the whole session.
 */
final class LockRenewals {

    private final EtcdCalls calls;

    private final SessionLeases sessions;

    LockRenewals(EtcdCalls calls, SessionLeases sessions) {
        this.calls = calls;
        this.sessions = sessions;
    }

    /** Completes with the lock's new local deadline ({@link System#nanoTime()}), or fails as lost. */
    CompletableFuture<Long> renew(EtcdLock lock) {
        SessionLease session = lock.session;
        if (lock.isLost()) {
            return CompletableFuture.failedFuture(lostCause(lock));
        }
        long sent = System.nanoTime();
        CompletableFuture<TxnResponse> check = this.calls.timed(
                () -> this.calls
                        .client()
                        .getKVClient()
                        .txn()
                        .If(new Cmp(
                                EtcdCalls.bytes(lock.key), Cmp.Op.EQUAL, CmpTarget.createRevision(lock.fencingToken())))
                        // A Txn of compares alone counts as serializable in etcd and may be answered by a
                        // lagging member; a (linearizable) range in it makes the confirmation linearizable.
                        .Then(Op.get(
                                EtcdCalls.bytes(lock.key),
                                GetOption.builder().withCountOnly(true).build()))
                        .commit(),
                "confirming lock '" + lock.resource() + "'");
        CompletableFuture<Long> keepAlive = this.calls
                .write(
                        () -> this.calls.client().getLeaseClient().keepAliveOnce(session.leaseId),
                        "renewing the lease of lock '" + lock.resource() + "'",
                        this.calls.requestTimeout(),
                        WriteOperation.RENEW)
                .thenApply(response -> response.getTTL());
        check.runAfterBoth(keepAlive, () -> {}).whenComplete((both, failure) -> {
            if (failure != null) {
                this.calls.events().renewalFailed(failure);
            }
        });
        return check.thenCombine(keepAlive, (confirmed, ttl) -> {
            if (ttl <= 0) {
                this.sessions.expire(session, "etcd no longer knows lease " + session.leaseId);
            } else {
                session.confirmed(sent, ttl);
            }
            if (!confirmed.isSucceeded()) {
                lock.markLost(new LockLostException("Lock '" + lock.resource() + "' (token " + lock.fencingToken()
                        + ") is gone from etcd: its lease expired or it was force-released"));
            }
            if (lock.isLost()) {
                throw new CompletionException(lostCause(lock));
            }
            return session.validUntilNanos();
        });
    }

    private static LockLostException lostCause(BackendLock lock) {
        LockLostException cause = lock.lostCause();
        return (cause != null) ? cause : new LockLostException("Lock '" + lock.resource() + "' was lost");
    }
}
