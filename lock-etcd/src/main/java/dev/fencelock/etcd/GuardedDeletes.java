package dev.fencelock.etcd;

import dev.fencelock.spi.WriteOperation;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Leaves no key behind: guarded deletes retried in the background while their session lives, and
 * abandon markers for puts whose outcome is unknown. Owns the clean-ups scheduled for such puts,
 * which a retry with the same request id cancels to adopt the key instead.
 *
 * <p>It also knows which keys are on their way out. An acquisition that reuses a request id must
 * never adopt such a key: the delete would land a moment later and leave its new holder holding
 * nothing. A removal is registered before its delete is sent; an acquisition that starts later
 * waits for it to settle ({@link #removalOf}), and one already under way is told of it ({@link
 * Adoption}) and may not hold the key it found ({@link #claim}). Either way it puts again once the
 * removal settled, and creates the key afresh, with a new token.
 */
final class GuardedDeletes {

    private final EtcdCalls calls;

    private final DeleteBatch deletes;

    /** The locks this backend holds, by key: never deleted or abandoned from here. */
    private final Map<String, EtcdLock> held;

    /** Clean-ups scheduled for keys a retry may still adopt; whoever sets the flag first, adoption or clean-up, wins. */
    private final Map<String, AtomicBoolean> pendingCleanups = new ConcurrentHashMap<>();

    /** Keys with a delete or abandon under way, and when each settles (deleted, or given up). */
    private final Map<String, CompletableFuture<Void>> removals = new ConcurrentHashMap<>();

    /** The acquisitions under way, by key; each set is only touched inside a compute of its key. */
    private final Map<String, Set<Adoption>> adoptions = new ConcurrentHashMap<>();

    /** How long an abandon marker lives: then no late put is expected any more. */
    private final Duration markerLifetime;

    GuardedDeletes(EtcdCalls calls, DeleteBatch deletes, Map<String, EtcdLock> held, Duration markerLifetime) {
        this.calls = calls;
        this.deletes = deletes;
        this.held = held;
        this.markerLifetime = markerLifetime;
    }

    /**
     * Deletes {@code key} if its create revision is still {@code revision}, retrying on failure,
     * unless this backend holds it (through another attempt with the same request id). The removal
     * is registered before the held map is asked, so an acquisition either holds the key first and
     * the delete is not sent, or is told of the removal before it can hold the key ({@link #claim}).
     */
    CompletableFuture<Boolean> deleteInBackground(String key, long revision, @Nullable SessionLease session) {
        CompletableFuture<Void> settled = registerRemoval(key);
        if (this.held.containsKey(key)) {
            settled.complete(null);
            return CompletableFuture.completedFuture(false);
        }
        DeleteRequest request = new DeleteRequest(key, revision, null);
        return retriedOnFailure(request, session, this.deletes.submit(request), settled);
    }

    /**
     * Returns {@code deleted}, the first try of {@code request}; if it fails, the delete is retried
     * in the background while the session lives (once it expires, etcd removes the key itself).
     * {@code settled} is the removal's registration, made before the delete was submitted ({@link
     * #registerRemoval}); it completes when the delete settles.
     */
    CompletableFuture<Boolean> retriedOnFailure(
            DeleteRequest request,
            @Nullable SessionLease session,
            CompletableFuture<Boolean> deleted,
            CompletableFuture<Void> settled) {
        deleted.whenComplete((ok, failure) -> {
            if (failure != null) {
                retryDelete(request.key(), request.revision(), session, 1, settled);
            } else {
                settled.complete(null);
            }
        });
        return deleted;
    }

    /** Completes once no delete or abandon of {@code key} from this backend is under way. */
    CompletableFuture<Void> removalOf(String key) {
        CompletableFuture<Void> removal = this.removals.get(key);
        return (removal != null) ? removal : CompletableFuture.completedFuture(null);
    }

    /**
     * Registers a delete of {@code key} that will be sent whoever may be acquiring it (a release, a
     * clean-up): call it before the delete is submitted, and before the lock is forgotten. Every
     * acquisition of the key under way loses its right to adopt the key it finds; one that starts
     * later finds the removal under way. Complete the returned future when the delete settles.
     */
    CompletableFuture<Void> registerRemoval(String key) {
        CompletableFuture<Void> settled = track(key);
        this.adoptions.computeIfPresent(key, (k, running) -> {
            running.forEach(Adoption::removalRegistered);
            return running;
        });
        return settled;
    }

    /**
     * Registers one more removal of {@code key}, without telling acquisitions under way: for a
     * removal that gives way to them ({@link #deleteUnlessBusy}), or one that refuses their puts
     * anyway (an abandon marker). The returned future is completed when it settles.
     */
    private CompletableFuture<Void> track(String key) {
        CompletableFuture<Void> settled = new CompletableFuture<>();
        CompletableFuture<Void> all =
                this.removals.merge(key, settled, (earlier, later) -> CompletableFuture.allOf(earlier, later));
        all.whenComplete((ignored, failure) -> this.removals.remove(key, all));
        return settled;
    }

    /**
     * An acquisition's right to hold the key its put found: lost when a removal of the key is
     * registered while the acquisition runs, even if that removal has settled by the time the put's
     * answer arrives (the delete landed after the put read the key, and was answered first).
     */
    static final class Adoption {

        private final String key;

        /** Guarded by this; whether a removal of the key was registered since the acquisition last looked. */
        private boolean removalRegistered;

        Adoption(String key) {
            this.key = key;
        }

        private synchronized void removalRegistered() {
            this.removalRegistered = true;
        }
    }

    private void retryDelete(
            String key, long revision, @Nullable SessionLease session, int attempt, CompletableFuture<Void> settled) {
        if (this.calls.isClosed() || (session != null && session.isExpired())) {
            settled.complete(null);
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
                                        retryDelete(key, revision, session, attempt + 1, settled);
                                    } else {
                                        settled.complete(null);
                                    }
                                }),
                        delay,
                        TimeUnit.NANOSECONDS);
    }

    /**
     * Starts an acquisition of the adoption's key. Cancels the clean-up an earlier attempt with this
     * key left scheduled: a retry with the same request id adopts the key instead. A clean-up that
     * already started is not cancelled; it counts as a removal under way ({@link #removalOf}).
     * Registers the acquisition, so that removals registered from now on reach it: ask {@link
     * #removalOf} after this, never before, and no removal falls between the two. End it with
     * {@link #ended}.
     */
    void adopt(Adoption adoption) {
        AtomicBoolean taken = this.pendingCleanups.remove(adoption.key);
        if (taken != null) {
            taken.compareAndSet(false, true);
        }
        this.adoptions.compute(adoption.key, (k, running) -> {
            Set<Adoption> all = (running != null) ? running : new HashSet<>();
            all.add(adoption);
            return all;
        });
    }

    /**
     * Holds the key through {@code hold} (which puts the lock in the held map), unless a removal of
     * the key was registered since the acquisition started or last looked: then returns {@code
     * null}, and the acquisition must wait for the removal to settle ({@link #lookAgain}) and put
     * again. The removal is marked under the same lock, so either it is seen here, or the lock is
     * in the held map before the remover asks it.
     */
    @Nullable
    EtcdLock claim(Adoption adoption, java.util.function.Supplier<EtcdLock> hold) {
        synchronized (adoption) {
            return adoption.removalRegistered ? null : hold.get();
        }
    }

    /** After {@link #claim} refused: removals registered from now on count; completes once the known ones settled. */
    CompletableFuture<Void> lookAgain(Adoption adoption) {
        synchronized (adoption) {
            adoption.removalRegistered = false;
        }
        return removalOf(adoption.key);
    }

    /** Ends an acquisition started with {@link #adopt}. */
    void ended(Adoption adoption) {
        this.adoptions.computeIfPresent(adoption.key, (k, running) -> {
            running.remove(adoption);
            return running.isEmpty() ? null : running;
        });
    }

    /**
     * Abandons {@code key} after {@code delayNanos}, unless a retry adopts it first. Once the
     * abandon runs, the key counts as on its way out until the abandon and its delete settle.
     */
    void abandonLater(String key, ByteSequence marker, ByteSequence record, SessionLease session, long delayNanos) {
        AtomicBoolean taken = new AtomicBoolean();
        this.pendingCleanups.put(key, taken);
        this.calls
                .scheduler()
                .schedule(
                        () -> {
                            // Tracked before it is taken, so a retry that comes too late finds it under way.
                            CompletableFuture<Void> settled = track(key);
                            if (taken.compareAndSet(false, true)) {
                                this.pendingCleanups.remove(key, taken);
                                abandonKey(key, marker, record, session, settled);
                            } else {
                                settled.complete(null); // a retry adopted the key first
                            }
                        },
                        delayNanos,
                        TimeUnit.NANOSECONDS);
    }

    /**
     * Abandons a key whose put had an unknown outcome. One Txn writes the abandoned marker, which
     * the acquire Txn checks, so a put that reaches etcd later can no longer create the key; if
     * the key was created already, it is then deleted by its create revision. Whichever of put
     * and abandon commits first, no key is left behind.
     */
    private void abandonKey(
            String key,
            ByteSequence marker,
            ByteSequence record,
            SessionLease session,
            CompletableFuture<Void> settled) {
        if (this.held.containsKey(key) || this.calls.isClosed()) {
            settled.complete(null);
            return;
        }
        ByteSequence keyBytes = EtcdCalls.bytes(key);
        PutOption onSession = PutOption.builder().withLeaseId(session.leaseId).build();
        Supplier<CompletableFuture<TxnResponse>> txn = () -> this.calls
                .client()
                .getKVClient()
                .txn()
                .Then(Op.put(marker, record, onSession), Op.get(keyBytes, GetOption.DEFAULT))
                .commit();
        this.calls
                .write(txn, "abandoning '" + key + "'", this.calls.attemptTimeout(), WriteOperation.ABANDON)
                .whenComplete((response, failure) -> {
                    if (failure != null) {
                        // Once the session is gone, so is its lease: a late put would be refused by etcd anyway.
                        if (!session.isExpired() && !this.calls.isClosed()) {
                            this.calls
                                    .scheduler()
                                    .schedule(
                                            () -> abandonKey(key, marker, record, session, settled),
                                            1,
                                            TimeUnit.SECONDS);
                        } else {
                            settled.complete(null);
                        }
                        return;
                    }
                    deleteMarkerLater(marker, session, 1);
                    for (KeyValue kv : response.getGetResponses().get(0).getKvs()) {
                        if (kv.getLease() == session.leaseId) {
                            // Tracked on its own, unless held here; this abandon settles once its marker is written.
                            deleteInBackground(key, kv.getCreateRevision(), session);
                        }
                    }
                    settled.complete(null);
                });
    }

    /**
     * Deletes an abandon marker once its lifetime is over, rather than when its session ends: a
     * long-lived session would otherwise collect one per unknown outcome. A put that still arrives
     * later creates a key nobody holds, which {@link OrphanSweep} removes.
     */
    private void deleteMarkerLater(ByteSequence marker, SessionLease session, int attempt) {
        long delay = (attempt == 1) ? this.markerLifetime.toNanos() : TimeUnit.SECONDS.toNanos(Math.min(30, attempt));
        this.calls
                .scheduler()
                .schedule(
                        () -> {
                            if (this.calls.isClosed() || session.isExpired()) {
                                return; // gone with its lease
                            }
                            this.calls
                                    .write(
                                            () -> this.calls
                                                    .client()
                                                    .getKVClient()
                                                    .delete(marker),
                                            "deleting an abandon marker",
                                            this.calls.attemptTimeout(),
                                            WriteOperation.ABANDON)
                                    .whenComplete((deleted, failure) -> {
                                        if (failure != null) {
                                            deleteMarkerLater(marker, session, attempt + 1);
                                        }
                                    });
                        },
                        delay,
                        TimeUnit.NANOSECONDS);
    }

    /** Whether a clean-up of {@code key} is scheduled, for a retry that may still adopt it. */
    boolean isAwaitingRetry(String key) {
        return this.pendingCleanups.containsKey(key);
    }

    /**
     * Deletes the key of a put answered after its attempt ended: the attempt's clean-up may have run
     * before this answer told it the key's revision (guarded; a second delete is harmless). Not while
     * {@code retried} says a retry with the same request id is under way: it adopts the key, with
     * its token; nor while a clean-up scheduled for the key awaits such a retry ({@link #deleteUnlessBusy}).
     */
    void deleteAnsweredLate(
            String key, PutBatch.PutOutcome outcome, SessionLease session, java.util.function.BooleanSupplier retried) {
        KeyValue existing = outcome.existing();
        long revision = outcome.created()
                ? outcome.revision()
                : (existing != null && existing.getLease() == session.leaseId) ? existing.getCreateRevision() : 0;
        if (revision != 0) {
            deleteUnlessBusy(key, revision, session, retried);
        }
    }

    /**
     * Deletes {@code key} (create revision {@code revision}) unless {@code busy} says someone here
     * is acquiring it, this backend holds it, or a clean-up scheduled for it awaits a retry. The
     * removal is registered before {@code busy} is asked, and an acquisition registers itself
     * before it asks for removals, so the two cannot miss each other: the acquisition waits for the
     * delete, or the delete is not sent and the acquisition may adopt the key.
     */
    void deleteUnlessBusy(String key, long revision, SessionLease session, java.util.function.BooleanSupplier busy) {
        CompletableFuture<Void> settled = track(key);
        if (busy.getAsBoolean() || this.held.containsKey(key) || isAwaitingRetry(key)) {
            settled.complete(null);
            return;
        }
        DeleteRequest request = new DeleteRequest(key, revision, null);
        retriedOnFailure(request, session, this.deletes.submit(request), settled);
    }

    /** Cancels every scheduled clean-up; the backend is closing and its sessions are revoked. */
    void cancelPending() {
        this.pendingCleanups.values().forEach(taken -> taken.set(true));
    }
}
