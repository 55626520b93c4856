package dev.fencelock.etcd;

import dev.fencelock.spi.WriteOperation;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Sends the puts of one client's acquisitions, folding concurrent ones of distinct resources into
 * shared Txns, and lets deferred releases ride along. Owns the riders: a deferred release waits
 * here for the next acquisition's Txn, or goes on its own through the {@link DeleteBatch} once its
 * linger time is over.
 */
final class PutBatch {

    /**
     * How long a deferred release waits for an acquisition to ride on. Nobody waits for it but a
     * remote waiter of the same resource, whose hand-off it delays by at most this much.
     */
    static final long RIDE_LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * The same when a local waiter is next in line: just long enough for the releasing thread's
     * next acquisition (a worker loop on a hot key) to carry the release in one Txn.
     */
    static final long HAND_OFF_LINGER_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    /** etcd's default {@code --max-txn-ops}: compares, and ops per branch, of one Txn. */
    private static final int MAX_TXN_OPS = 128;

    private static final int MAX_RIDERS = 64;

    /**
     * Acquisitions waiting for a Txn slot beyond this are refused at once: an etcd that does not keep
     * up is not fed a growing backlog (they were never sent, so they back off like etcd's own refusals).
     */
    static final int MAX_QUEUED_PUTS = 4096;

    /**
     * An acquisition's put, waiting for a shared Txn; dropped unsent once {@code acquisition} is
     * done (the caller gave up). Sending and withdrawing race for it: whichever comes first decides,
     * so an acquisition that withdrew its put knows for certain that nothing of it was written.
     */
    record PutRequest(
            AcquisitionOps ops, SessionLease session, boolean readOwner, Future<?> acquisition, AtomicInteger state) {

        private static final int QUEUED = 0;

        private static final int SENT = 1;

        private static final int WITHDRAWN = 2;

        PutRequest(AcquisitionOps ops, SessionLease session, boolean readOwner, Future<?> acquisition) {
            this(ops, session, readOwner, acquisition, new AtomicInteger(QUEUED));
        }

        /** Claims the put for a Txn; false when it must be dropped unsent instead. */
        boolean claimForSending() {
            return !this.acquisition.isDone() && this.state.compareAndSet(QUEUED, SENT);
        }

        /** Takes the put back unless it was sent; true when it certainly never reaches etcd. */
        boolean withdraw() {
            return this.state.compareAndSet(QUEUED, WITHDRAWN) || this.state.get() == WITHDRAWN;
        }
    }

    /**
     * What the put found: my key created at {@code revision}, or the key that already existed
     * ({@code null} when the abandoned marker blocked the put), and the resource's oldest key
     * ({@code null} when it was not read, because the resource's queue is mirrored here).
     */
    record PutOutcome(
            boolean created,
            long revision,
            @Nullable KeyValue existing,
            @Nullable List<KeyValue> owner) {}

    /** A deferred release, and the future its caller holds. */
    private record Rider(DeleteRequest request, CompletableFuture<Boolean> result) {}

    private final EtcdCalls calls;

    private final DeleteBatch deletes;

    /** Concurrent acquisitions of distinct resources share one Txn (one raft commit). */
    private final TxnCoalescer<PutRequest, PutOutcome> puts;

    /** Deferred releases waiting to ride on the next acquisition's Txn. */
    private final ArrayDeque<Rider> riders = new ArrayDeque<>();

    PutBatch(EtcdCalls calls, DeleteBatch deletes) {
        this.calls = calls;
        this.deletes = deletes;
        this.puts = new TxnCoalescer<>(
                32,
                2,
                MAX_QUEUED_PUTS,
                request -> request.ops().prefix,
                request -> !request.claimForSending(),
                this::sendPuts);
    }

    /** Sends {@code request}, in a Txn shared with other acquisitions if some are under way. */
    CompletableFuture<PutOutcome> submit(PutRequest request) {
        return this.puts.submit(request);
    }

    /**
     * Holds a release back so that it rides on this client's next acquisition Txn; it goes on its
     * own after {@link #RIDE_LINGER_NANOS}, or after {@link #HAND_OFF_LINGER_NANOS} when a local
     * waiter is next in line.
     */
    CompletableFuture<Boolean> defer(DeleteRequest request) {
        Rider rider = new Rider(request, new CompletableFuture<>());
        synchronized (this.riders) {
            this.riders.add(rider);
        }
        this.calls
                .scheduler()
                .schedule(
                        () -> flushRider(rider),
                        request.successor() != null ? HAND_OFF_LINGER_NANOS : RIDE_LINGER_NANOS,
                        TimeUnit.NANOSECONDS);
        return rider.result();
    }

    /**
     * Sends the puts of several acquisitions in one Txn, with any deferred releases riding along.
     * All keys created by one Txn share its revision, so the batch never holds two puts of one
     * resource (the coalescer sees to it); a release of a resource may share a Txn with a put of
     * it, deleting one key and creating the other. If any compare fails, the Txn changed nothing
     * and each put and release goes again on its own.
     */
    private CompletableFuture<?> sendPuts(List<TxnCoalescer.Pending<PutRequest, PutOutcome>> taken) {
        // A put on a session that already expired here would fail in etcd and, shared, fail the rest.
        List<TxnCoalescer.Pending<PutRequest, PutOutcome>> batch = new ArrayList<>(taken.size());
        for (TxnCoalescer.Pending<PutRequest, PutOutcome> pending : taken) {
            SessionLease session = pending.request().session();
            if (session.isExpired()) {
                pending.result()
                        .completeExceptionally(new EtcdFailures.SessionGoneException(
                                "Session lease " + session.leaseId + " expired before the put was sent"));
            } else {
                batch.add(pending);
            }
        }
        if (batch.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        List<Rider> riders = takeRiders(batch);
        if (batch.size() == 1 && riders.isEmpty()) {
            return putAlone(batch.get(0));
        }
        List<Cmp> conditions = new ArrayList<>();
        List<Op> operations = new ArrayList<>();
        for (Rider rider : riders) {
            // Deletes first: the owner reads below then see the store without the released keys.
            rider.request().addTo(conditions, operations);
        }
        for (TxnCoalescer.Pending<PutRequest, PutOutcome> pending : batch) {
            AcquisitionOps ops = pending.request().ops();
            conditions.addAll(List.of(ops.putConditions(pending.request().session())));
            operations.add(ops.putOp(pending.request().session()));
            if (pending.request().readOwner()) {
                operations.add(ops.ownerRead());
            }
        }
        return SharedTxn.allOrEach(
                this.calls,
                conditions,
                operations,
                "acquiring " + batch.size() + " locks",
                WriteOperation.ACQUIRE,
                response -> {
                    long revision = response.getHeader().getRevision();
                    // Range responses in op order: the riders' successor reads, then the owner reads.
                    Iterator<GetResponse> reads = response.getGetResponses().iterator();
                    List<Runnable> handOvers = new ArrayList<>();
                    for (Rider rider : riders) {
                        handOvers.add(rider.request().handOver(reads));
                    }
                    for (TxnCoalescer.Pending<PutRequest, PutOutcome> pending : batch) {
                        List<KeyValue> owner =
                                pending.request().readOwner() ? reads.next().getKvs() : null;
                        pending.result().complete(new PutOutcome(true, revision, null, owner));
                    }
                    handOvers.forEach(Runnable::run);
                    riders.forEach(rider -> rider.result().complete(true));
                },
                () -> {
                    List<CompletableFuture<?>> each = new ArrayList<>();
                    batch.forEach(pending -> each.add(putAlone(pending)));
                    riders.forEach(rider -> each.add(sendRider(rider)));
                    return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new));
                },
                failure -> {
                    batch.forEach(pending -> pending.result().completeExceptionally(failure));
                    riders.forEach(rider -> rider.result().completeExceptionally(failure));
                });
    }

    /** One acquisition's put, with an Else branch that reads back a key that already exists. */
    private CompletableFuture<?> putAlone(TxnCoalescer.Pending<PutRequest, PutOutcome> pending) {
        AcquisitionOps ops = pending.request().ops();
        Op put = ops.putOp(pending.request().session());
        boolean readOwner = pending.request().readOwner();
        Supplier<CompletableFuture<TxnResponse>> txn = () -> this.calls
                .client()
                .getKVClient()
                .txn()
                .If(ops.putConditions(pending.request().session()))
                .Then(readOwner ? new Op[] {put, ops.ownerRead()} : new Op[] {put})
                .Else(
                        Op.get(ops.keyBytes, GetOption.DEFAULT),
                        Op.get(ops.markerBytes(pending.request().session()), GetOption.DEFAULT),
                        ops.ownerRead())
                .commit();
        return this.calls
                .write(
                        txn,
                        "acquiring lock '" + ops.command.resource() + "'",
                        this.calls.attemptTimeout(),
                        WriteOperation.ACQUIRE)
                .whenComplete((response, failure) -> {
                    if (failure != null) {
                        pending.result().completeExceptionally(failure);
                        return;
                    }
                    // Then = [put, owner read if asked], Else = [my key, its marker, owner read]: the owner read is
                    // the last range.
                    List<GetResponse> reads = response.getGetResponses();
                    List<KeyValue> owner =
                            reads.isEmpty() ? null : reads.get(reads.size() - 1).getKvs();
                    if (response.isSucceeded()) {
                        pending.result()
                                .complete(new PutOutcome(
                                        true, response.getHeader().getRevision(), null, owner));
                    } else {
                        List<KeyValue> mine = reads.get(0).getKvs();
                        // A marker means the request id was abandoned, even if its key still awaits deletion.
                        boolean abandoned = !reads.get(1).getKvs().isEmpty();
                        KeyValue existing = (mine.isEmpty() || abandoned) ? null : mine.get(0);
                        pending.result().complete(new PutOutcome(false, 0, existing, owner));
                    }
                });
    }

    /** Deferred releases that may still ride on an acquisition's Txn, up to etcd's limit of ops per Txn. */
    private List<Rider> takeRiders(List<TxnCoalescer.Pending<PutRequest, PutOutcome>> batch) {
        synchronized (this.riders) {
            if (this.riders.isEmpty()) {
                return List.of();
            }
            // A put uses two compares and up to two ops, a rider one compare and up to two ops.
            int room = Math.min(MAX_RIDERS, (MAX_TXN_OPS - 2 * batch.size()) / 2);
            Set<String> putKeys = new HashSet<>();
            batch.forEach(pending -> putKeys.add(pending.request().ops().key));
            List<Rider> taken = new ArrayList<>();
            Iterator<Rider> waiting = this.riders.iterator();
            while (waiting.hasNext() && taken.size() < room) {
                Rider rider = waiting.next();
                // A retry re-using a released key's request id must not share its Txn: the compares would clash.
                if (!putKeys.contains(rider.request().key())) {
                    waiting.remove();
                    taken.add(rider);
                }
            }
            return taken;
        }
    }

    /** Sends a deferred release on its own if no acquisition took it along within its linger time. */
    private void flushRider(Rider rider) {
        boolean waiting;
        synchronized (this.riders) {
            waiting = this.riders.remove(rider);
        }
        if (waiting) {
            sendRider(rider);
        }
    }

    /** Sends every deferred release still waiting. */
    void flushRiders() {
        List<Rider> left;
        synchronized (this.riders) {
            left = new ArrayList<>(this.riders);
            this.riders.clear();
        }
        left.forEach(this::sendRider);
    }

    private CompletableFuture<?> sendRider(Rider rider) {
        return this.deletes.submit(rider.request()).whenComplete((deleted, failure) -> {
            if (failure != null) {
                rider.result().completeExceptionally(failure);
            } else {
                rider.result().complete(deleted);
            }
        });
    }
}
