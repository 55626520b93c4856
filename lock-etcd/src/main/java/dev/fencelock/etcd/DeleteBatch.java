package dev.fencelock.etcd;

import dev.fencelock.spi.WriteOperation;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.Op;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Sends guarded deletes (releases, clean-ups) of one client, folding concurrent ones into shared
 * Txns. Each delete compares its key's create revision, so a shared Txn whose compare fails for
 * one key changed nothing, and every delete goes again on its own.
 */
final class DeleteBatch {

    private final EtcdCalls calls;

    /** Concurrent releases share one Txn. */
    private final TxnCoalescer<DeleteRequest, Boolean> deletes;

    DeleteBatch(EtcdCalls calls) {
        this.calls = calls;
        this.deletes =
                new TxnCoalescer<>(64, 2, Integer.MAX_VALUE, DeleteRequest::key, request -> false, this::sendDeletes);
    }

    /** Sends {@code request}, in a Txn shared with other deletes if some are under way. */
    CompletableFuture<Boolean> submit(DeleteRequest request) {
        return this.deletes.submit(request);
    }

    /** Several guarded deletes in one Txn; if any key changed, each goes again on its own. */
    private CompletableFuture<?> sendDeletes(List<TxnCoalescer.Pending<DeleteRequest, Boolean>> batch) {
        if (batch.size() == 1) {
            return deleteAlone(batch.get(0));
        }
        List<Cmp> conditions = new ArrayList<>();
        List<Op> operations = new ArrayList<>();
        for (TxnCoalescer.Pending<DeleteRequest, Boolean> pending : batch) {
            pending.request().addTo(conditions, operations);
        }
        return SharedTxn.allOrEach(
                this.calls,
                conditions,
                operations,
                "releasing " + batch.size() + " locks",
                WriteOperation.RELEASE,
                response -> {
                    Iterator<GetResponse> reads = response.getGetResponses().iterator();
                    for (TxnCoalescer.Pending<DeleteRequest, Boolean> pending : batch) {
                        pending.result().complete(true);
                        pending.request().handOver(reads).run();
                    }
                },
                () -> CompletableFuture.allOf(
                        batch.stream().map(this::deleteAlone).toArray(CompletableFuture[]::new)),
                failure -> batch.forEach(pending -> pending.result().completeExceptionally(failure)));
    }

    private CompletableFuture<?> deleteAlone(TxnCoalescer.Pending<DeleteRequest, Boolean> pending) {
        return deleteGuarded(pending.request()).whenComplete((deleted, failure) -> {
            if (failure != null) {
                pending.result().completeExceptionally(failure);
            } else {
                pending.result().complete(deleted);
            }
        });
    }

    /** One guarded delete in a Txn of its own; completes with whether it deleted the key. */
    CompletableFuture<Boolean> deleteGuarded(DeleteRequest request) {
        List<Cmp> conditions = new ArrayList<>();
        List<Op> operations = new ArrayList<>();
        request.addTo(conditions, operations);
        return this.calls
                .write(
                        () -> this.calls
                                .client()
                                .getKVClient()
                                .txn()
                                .If(conditions.toArray(Cmp[]::new))
                                .Then(operations.toArray(Op[]::new))
                                .commit(),
                        "releasing '" + request.key() + "'",
                        this.calls.attemptTimeout(),
                        WriteOperation.RELEASE)
                .thenApply(response -> {
                    if (response.isSucceeded()) {
                        request.handOver(response.getGetResponses().iterator()).run();
                    }
                    return response.isSucceeded();
                });
    }
}
