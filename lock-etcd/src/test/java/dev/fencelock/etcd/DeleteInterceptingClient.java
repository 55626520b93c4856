package dev.fencelock.etcd;

import io.etcd.jetcd.Auth;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Cluster;
import io.etcd.jetcd.Election;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Lock;
import io.etcd.jetcd.Maintenance;
import io.etcd.jetcd.Txn;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.CompactResponse;
import io.etcd.jetcd.kv.DeleteResponse;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.PutResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.CompactOption;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.TxnOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * A jetcd client that lets a test step in just as a delete is about to be sent. The first Txn that
 * deletes a key after {@link #beforeNextDelete} runs the test's code on the thread sending it, then
 * waits until every Txn sent while that code ran has been answered, and only then sends the delete.
 * So whatever the test's code set going is answered before the delete reaches etcd: the order is
 * fixed by the test, not by timing. Everything else is passed straight to the real client.
 */
final class DeleteInterceptingClient implements Client {

    private final Client delegate;

    private final KV kv;

    private final AtomicReference<@Nullable Runnable> beforeDelete = new AtomicReference<>();

    /** The answers of Txns sent while the test's code runs, when it does. */
    private volatile @Nullable List<CompletableFuture<TxnResponse>> sentMeanwhile;

    DeleteInterceptingClient(Client delegate) {
        this.delegate = delegate;
        this.kv = new InterceptingKv(delegate.getKVClient());
    }

    /** Runs {@code action} on the sending thread before the next Txn that deletes a key goes out. */
    void beforeNextDelete(Runnable action) {
        this.beforeDelete.set(action);
    }

    @Override
    public KV getKVClient() {
        return this.kv;
    }

    @Override
    public Auth getAuthClient() {
        return this.delegate.getAuthClient();
    }

    @Override
    public Cluster getClusterClient() {
        return this.delegate.getClusterClient();
    }

    @Override
    public Maintenance getMaintenanceClient() {
        return this.delegate.getMaintenanceClient();
    }

    @Override
    public Lease getLeaseClient() {
        return this.delegate.getLeaseClient();
    }

    @Override
    public Watch getWatchClient() {
        return this.delegate.getWatchClient();
    }

    @Override
    public Lock getLockClient() {
        return this.delegate.getLockClient();
    }

    @Override
    public Election getElectionClient() {
        return this.delegate.getElectionClient();
    }

    @Override
    public void close() {
        this.delegate.close();
    }

    private CompletableFuture<TxnResponse> commit(Txn txn, boolean deletes) {
        Runnable action = deletes ? this.beforeDelete.getAndSet(null) : null;
        if (action == null) {
            CompletableFuture<TxnResponse> answer = txn.commit();
            List<CompletableFuture<TxnResponse>> meanwhile = this.sentMeanwhile;
            if (meanwhile != null) {
                meanwhile.add(answer);
            }
            return answer;
        }
        List<CompletableFuture<TxnResponse>> meanwhile = new CopyOnWriteArrayList<>();
        this.sentMeanwhile = meanwhile;
        try {
            action.run();
        } finally {
            this.sentMeanwhile = null;
        }
        try {
            CompletableFuture.allOf(meanwhile.toArray(CompletableFuture[]::new))
                    .handle((ignored, failure) -> null)
                    .get(10, TimeUnit.SECONDS);
        } catch (Exception ex) {
            throw new IllegalStateException("A Txn sent before the intercepted delete was not answered", ex);
        }
        return txn.commit();
    }

    private final class InterceptingKv implements KV {

        private final KV delegate;

        InterceptingKv(KV delegate) {
            this.delegate = delegate;
        }

        @Override
        public Txn txn() {
            return new InterceptingTxn(this.delegate.txn());
        }

        @Override
        public Txn txn(TxnOption option) {
            return new InterceptingTxn(this.delegate.txn(option));
        }

        @Override
        public CompletableFuture<PutResponse> put(ByteSequence key, ByteSequence value) {
            return this.delegate.put(key, value);
        }

        @Override
        public CompletableFuture<PutResponse> put(ByteSequence key, ByteSequence value, PutOption option) {
            return this.delegate.put(key, value, option);
        }

        @Override
        public CompletableFuture<GetResponse> get(ByteSequence key) {
            return this.delegate.get(key);
        }

        @Override
        public CompletableFuture<GetResponse> get(ByteSequence key, GetOption option) {
            return this.delegate.get(key, option);
        }

        @Override
        public CompletableFuture<DeleteResponse> delete(ByteSequence key) {
            return this.delegate.delete(key);
        }

        @Override
        public CompletableFuture<DeleteResponse> delete(ByteSequence key, DeleteOption option) {
            return this.delegate.delete(key, option);
        }

        @Override
        public CompletableFuture<CompactResponse> compact(long revision) {
            return this.delegate.compact(revision);
        }

        @Override
        public CompletableFuture<CompactResponse> compact(long revision, CompactOption option) {
            return this.delegate.compact(revision, option);
        }

        @Override
        public void close() {
            this.delegate.close();
        }
    }

    private final class InterceptingTxn implements Txn {

        private final Txn delegate;

        private final List<Op> then = new ArrayList<>();

        InterceptingTxn(Txn delegate) {
            this.delegate = delegate;
        }

        @Override
        public Txn If(Cmp... cmps) {
            this.delegate.If(cmps);
            return this;
        }

        @Override
        public Txn Then(Op... ops) {
            this.delegate.Then(ops);
            this.then.addAll(List.of(ops));
            return this;
        }

        @Override
        public Txn Else(Op... ops) {
            this.delegate.Else(ops);
            return this;
        }

        @Override
        public CompletableFuture<TxnResponse> commit() {
            return DeleteInterceptingClient.this.commit(
                    this.delegate, this.then.stream().anyMatch(op -> op instanceof Op.DeleteOp));
        }
    }
}
