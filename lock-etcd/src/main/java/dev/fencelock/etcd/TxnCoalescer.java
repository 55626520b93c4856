package dev.fencelock.etcd;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Folds concurrent requests of one client into shared etcd transactions: one raft commit for many
 * acquisitions or releases instead of one each.
 *
 * <p>A request is sent at once while fewer than {@code maxInFlight} transactions are under way, so
 * a lone caller never waits; when the limit is reached, requests queue and leave together, up to
 * {@code maxBatch} in one transaction, as soon as one returns. Two requests with the same conflict
 * key never share a transaction: for acquisitions of one resource that would give two keys the
 * same create revision, and so the same fencing token.
 *
 * @param <T> a request
 * @param <R> its result
 */
final class TxnCoalescer<T, R> {

    /** Refusal of a request that was never sent, because too many were queued already. */
    static final class NotSentException extends dev.fencelock.LockBackendUnavailableException {

        private static final long serialVersionUID = 1L;

        NotSentException(String message) {
            super(message);
        }
    }

    /** A queued request and the future its caller waits on. */
    record Pending<T, R>(T request, CompletableFuture<R> result) {}

    /** Sends a batch (never empty) and completes every request's future, one way or the other. */
    @FunctionalInterface
    interface Sender<T, R> {
        CompletableFuture<?> send(List<Pending<T, R>> batch);
    }

    private final int maxBatch;

    private final int maxInFlight;

    private final int maxQueued;

    private final Function<T, Object> conflictKey;

    /** Asked once per request, when it could be sent: whether to drop it instead (its caller gave up). */
    private final Predicate<T> abandoned;

    private final Sender<T, R> sender;

    private final ArrayDeque<Pending<T, R>> queue = new ArrayDeque<>();

    private int inFlight;

    TxnCoalescer(
            int maxBatch,
            int maxInFlight,
            int maxQueued,
            Function<T, Object> conflictKey,
            Predicate<T> abandoned,
            Sender<T, R> sender) {
        this.maxBatch = maxBatch;
        this.maxInFlight = maxInFlight;
        this.maxQueued = maxQueued;
        this.conflictKey = conflictKey;
        this.abandoned = abandoned;
        this.sender = sender;
    }

    CompletableFuture<R> submit(T request) {
        Pending<T, R> pending = new Pending<>(request, new CompletableFuture<>());
        List<Pending<T, R>> batch = null;
        synchronized (this) {
            if (this.queue.size() >= this.maxQueued) {
                pending.result()
                        .completeExceptionally(new NotSentException(this.queue.size()
                                + " requests are already queued for the store, which is not keeping up"));
                return pending.result();
            }
            this.queue.add(pending);
            if (this.inFlight < this.maxInFlight) {
                batch = take();
                if (!batch.isEmpty()) {
                    this.inFlight++;
                }
            }
        }
        if (batch != null && !batch.isEmpty()) {
            send(batch);
        }
        return pending.result();
    }

    /** Up to maxBatch queued requests with distinct conflict keys; drops requests given up meanwhile. */
    private List<Pending<T, R>> take() {
        List<Pending<T, R>> batch = new ArrayList<>();
        Set<Object> keys = new HashSet<>();
        Iterator<Pending<T, R>> queued = this.queue.iterator();
        while (queued.hasNext() && batch.size() < this.maxBatch) {
            Pending<T, R> pending = queued.next();
            Object conflictKey = this.conflictKey.apply(pending.request());
            if (keys.contains(conflictKey)) {
                continue; // waits for a later Txn; asked whether it is abandoned only when it can go
            }
            if (this.abandoned.test(pending.request())) {
                queued.remove();
                // Never sent, so nothing of it can be in the store.
                pending.result().completeExceptionally(new CancellationException("given up before it was sent"));
            } else {
                keys.add(conflictKey);
                queued.remove();
                batch.add(pending);
            }
        }
        return batch;
    }

    private void send(List<Pending<T, R>> batch) {
        CompletableFuture<?> sent;
        try {
            sent = this.sender.send(batch);
        } catch (RuntimeException ex) {
            batch.forEach(pending -> pending.result().completeExceptionally(ex));
            sent = CompletableFuture.completedFuture(null);
        }
        sent.whenComplete((ignored, failure) -> {
            List<Pending<T, R>> next;
            synchronized (this) {
                next = take();
                if (next.isEmpty()) {
                    this.inFlight--;
                }
            }
            if (!next.isEmpty()) {
                send(next);
            }
        });
    }
}
