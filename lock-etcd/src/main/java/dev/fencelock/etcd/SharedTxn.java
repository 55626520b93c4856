package dev.fencelock.etcd;

import dev.fencelock.spi.WriteOperation;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.Op;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One Txn carrying the requests of several callers. etcd applies a Txn all or nothing, so a
 * compare that fails for one request (its key changed) leaves every other untouched: they are
 * then sent again, each on its own, and only the one whose compare failed sees it fail. The same
 * holds when etcd refuses the Txn because one request's lease is gone.
 */
final class SharedTxn {

    private SharedTxn() {}

    /**
     * Sends a batch as one all-or-nothing Txn. If its compares hold, {@code succeeded} completes the
     * requests from the response; if any fails, the Txn changed nothing and {@code eachAlone} sends
     * every request again on its own; if etcd does not answer, {@code failed} fails them all.
     */
    static CompletableFuture<?> allOrEach(
            EtcdCalls calls,
            List<Cmp> conditions,
            List<Op> operations,
            String what,
            WriteOperation operation,
            Consumer<TxnResponse> succeeded,
            Supplier<CompletableFuture<?>> eachAlone,
            Consumer<Throwable> failed) {
        Supplier<CompletableFuture<TxnResponse>> txn = () -> calls.client()
                .getKVClient()
                .txn()
                .If(conditions.toArray(Cmp[]::new))
                .Then(operations.toArray(Op[]::new))
                .commit();
        return calls.write(txn, what, calls.attemptTimeout(), operation)
                .handle((response, failure) -> {
                    if (failure != null && EtcdFailures.isLeaseGone(failure)) {
                        // One request's lease is gone and the Txn wrote nothing: the others must not fail with it.
                        return eachAlone.get();
                    }
                    if (failure != null) {
                        failed.accept(failure);
                        return CompletableFuture.<Object>completedFuture(null);
                    }
                    if (!response.isSucceeded()) {
                        return eachAlone.get();
                    }
                    succeeded.accept(response);
                    return CompletableFuture.<Object>completedFuture(null);
                })
                .thenCompose(next -> next);
    }
}
