package dev.fencelock.etcd;

import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockException;
import dev.fencelock.LockLostException;
import dev.fencelock.LockOutcomeUnknownException;
import dev.fencelock.LockPermitsMismatchException;
import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockKind;
import dev.fencelock.spi.QueueWalk;
import io.etcd.jetcd.KeyValue;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition from first request to lock, failure or cancellation: the put (retried where that
 * is safe), the decision from its read or the queue mirror, the periodic predecessor re-check, the
 * wait deadline, and the clean-up that leaves no key behind when it does not end with the lock.
 */
final class AcquireAttempt implements QueueWaiter {

    private final AttemptCollaborators with;

    private final EtcdCalls calls;

    private final AcquisitionOps ops;

    private final AcquireCommand command;

    private final String key;

    private final String prefix;

    private final CompletableFuture<BackendLock> result = new CompletableFuture<>();

    private volatile @Nullable SessionLease session;

    /** What is known of the outcome of the puts sent so far. */
    private final SentPuts sent = new SentPuts();

    /** The refusals and failures of this attempt's puts (and grants) that made it try again later. */
    private final PutRefusals refusals = new PutRefusals();

    /** Create revision of my key once known, else 0. */
    private volatile long myRevision;

    private volatile @Nullable ResourceWatch watch;

    private volatile @Nullable ScheduledFuture<?> recheck;

    /** This attempt's right to hold the key its put finds, lost to a removal registered meanwhile. */
    private final GuardedDeletes.Adoption adoption;

    /** Why etcd did not answer, probed shortly before the deadline while it has not ({@link EndpointProbe}). */
    private final CompletableFuture<String> unansweredBecause = new CompletableFuture<>();

    /**
     * Set by whichever ends the attempt first: a grant, or a clean-up before a timeout is
     * reported. Without it a timeout could delete the key of a lock granted a moment earlier.
     */
    private final AtomicBoolean decided = new AtomicBoolean();

    AcquireAttempt(AcquisitionOps ops, AttemptCollaborators with) {
        this.with = with;
        this.calls = with.calls();
        this.ops = ops;
        this.command = ops.command;
        this.key = ops.key;
        this.prefix = ops.prefix;
        this.adoption = new GuardedDeletes.Adoption(ops.key);
    }

    /** Completes with the lock, or fails; cancelling it abandons the attempt. */
    CompletableFuture<BackendLock> result() {
        return this.result;
    }

    AcquireCommand command() {
        return this.command;
    }

    String key() {
        return this.key;
    }

    @Override
    public long revision() {
        return this.myRevision;
    }

    @Override
    public @Nullable SessionLease session() {
        return this.session;
    }

    void start() {
        // A retry with the same request id adopts the key an earlier attempt may have left, unless a
        // delete of it is under way: then it waits for that to settle and creates the key afresh.
        this.with.deletes().adopt(this.adoption);
        CompletableFuture<Void> removal = this.with.deletes().removalOf(this.key);
        ScheduledFuture<?> deadline = this.calls
                .scheduler()
                .schedule(this::deadlineReached, this.command.remainingNanos(), TimeUnit.NANOSECONDS);
        ScheduledFuture<?> probe = this.calls.probeBefore(
                this.command.remainingNanos(),
                () -> !this.result.isDone() && (this.sent.lastUnanswered() || this.myRevision == 0),
                this.unansweredBecause);
        this.result.whenComplete((lock, failure) -> {
            deadline.cancel(false);
            probe.cancel(false);
            stopWaiting();
            this.with.deletes().ended(this.adoption);
            if (failure != null) {
                abandon();
            }
        });
        removal.whenComplete((removed, ignored) -> putOnSession());
    }

    /**
     * Puts on the live session, granting one if needed. A grant that failed because etcd could not
     * be reached, or was not answered in time, is asked again within the wait time; one that etcd refused (credentials,
     * permissions, TLS) ends the attempt at once.
     */
    private void putOnSession() {
        if (this.result.isDone()) {
            return;
        }
        this.with
                .sessions()
                .session(this.command.ttlSeconds(), this.command.deadlineNanos())
                .whenComplete((session, failure) -> {
                    if (failure == null) {
                        this.session = session;
                        put(session);
                        return;
                    }
                    LockException cause = this.calls.unavailable(
                            "creating a session lease for lock '" + this.command.resource() + "'", failure);
                    if (EtcdRefusals.isFinal(cause)
                            || !(EtcdFailures.isUnavailable(failure) || EtcdFailures.isNoAnswer(failure))) {
                        fail(cause);
                    } else {
                        // Nothing of a grant's is at stake, answered or not: a lease granted unheard-of
                        // holds no key and expires by itself.
                        againLater(this::putOnSession, failure, false);
                    }
                });
    }

    private void put(SessionLease session) {
        if (this.result.isDone()) {
            return;
        }
        // With the resource's queue mirrored here already, the mirror decides and the Txn reads nothing.
        boolean readOwner =
                !this.command.waitForRelease() || !this.with.watches().isMirrored(this.prefix);
        PutBatch.PutRequest request = new PutBatch.PutRequest(this.ops, session, readOwner, this.result);
        this.sent.sending(request);
        this.with.puts().submit(request).whenComplete((outcome, failure) -> {
            if (failure != null) {
                if (EtcdRefusals.isFinal(failure)) {
                    // Refused for who this client is, or TLS failed: nothing of this send was written,
                    // and sending again would be refused the same way.
                    this.sent.refused();
                    fail(failure);
                } else if (EtcdFailures.isLeaseGone(failure)) {
                    // etcd no longer knows this session's lease (or it expired here): nothing was
                    // written; drop the session and put again on a fresh one.
                    this.sent.settled();
                    this.with.sessions().expire(session, "etcd no longer knows lease " + session.leaseId);
                    if (System.nanoTime() - this.command.deadlineNanos() >= 0) {
                        fail(this.calls.unavailable("acquiring lock '" + this.command.resource() + "'", failure));
                    } else {
                        putOnSession();
                    }
                } else if (EtcdFailures.isKnownNotWritten(failure)) {
                    // Refused before anything was proposed, or never sent: no key can exist, so no
                    // abandon marker; back off and try again within the wait time.
                    this.sent.settled();
                    againLater(() -> put(session), failure, true);
                } else if (EtcdFailures.isNoAnswer(failure) && System.nanoTime() - this.command.deadlineNanos() < 0) {
                    // No answer in time (e.g. the member lost its leader): the guarded put is safe to
                    // send again; it creates my key or finds the one an earlier send created.
                    put(session);
                } else if (EtcdFailures.isUnavailable(failure)) {
                    // The connection failed under the request (a member died, a GOAWAY): it may have
                    // been applied, so the outcome stays unknown, but a guarded resend is safe.
                    againLater(() -> put(session), failure, false);
                } else {
                    fail(failure);
                }
                return;
            }
            this.sent.settled();
            try {
                onPut(session, outcome);
            } catch (RuntimeException ex) {
                fail(ex);
            }
        });
    }

    /** Backs off (jittered, doubling from 20 ms up to 1 s) unless that passes the wait deadline. */
    private void againLater(Runnable action, Throwable refusal, boolean nothingWritten) {
        long delay = this.refusals.record(refusal, nothingWritten);
        if (this.result.isDone() || System.nanoTime() + delay - this.command.deadlineNanos() > 0) {
            failRefused(refusal, nothingWritten);
            return;
        }
        this.calls.scheduler().schedule(action, delay, TimeUnit.NANOSECONDS);
    }

    private void onPut(SessionLease session, PutBatch.PutOutcome outcome) {
        if (this.result.isDone()) {
            // Answered after the attempt ended: joining the queue's watch now would subscribe an attempt
            // that nothing unsubscribes any more. The key goes, unless a retry is under way to adopt it.
            BooleanSupplier retried = () -> this.with.anotherAttemptOfKey().test(this);
            this.with.deletes().deleteAnsweredLate(this.key, outcome, session, retried);
            return;
        }
        long revision;
        if (outcome.created()) {
            revision = outcome.revision();
        } else {
            KeyValue existing = outcome.existing();
            if (existing == null) {
                fail(EtcdFailures.requestIdAbandoned(this.command));
                return;
            }
            if (existing.getLease() != session.leaseId) {
                // Not ours to delete: another session made this key.
                fail(EtcdFailures.requestIdInUse(this.command, existing.getLease()));
                return;
            }
            revision = existing.getCreateRevision();
        }
        this.myRevision = revision;
        List<KeyValue> owner = outcome.owner();
        if (owner != null && QueueReads.decide(this, this.command.kind(), owner, session, revision)) {
            return; // granted or refused; unread (owner null), the queue mirror decides as for any waiter
        }
        if (!this.command.waitForRelease()) {
            failAfterCleanup(new LockAcquisitionTimeoutException(
                    "Lock '" + this.command.resource() + "' is held by someone else"));
        } else {
            // The resource's queue mirror decides from here; the periodic re-check is a safety net.
            joinWatch();
            scheduleRecheck();
        }
    }

    /** Reads what is left ahead of my key (exclusive: its predecessor), confirming my key still exists. */
    private void checkPredecessor() {
        if (this.result.isDone()) {
            return;
        }
        long revision = this.myRevision;
        this.calls
                .timed(
                        () -> this.ops.readAhead(this.calls.client(), revision),
                        "waiting for lock '" + this.command.resource() + "'")
                .whenComplete((response, failure) -> {
                    if (this.myRevision != revision) {
                        return; // put again meanwhile: this read was of the old key, and the new put decides
                    }
                    if (failure != null) {
                        // A failed read is not the end: retry until the deadline says so.
                        scheduleRecheck();
                        return;
                    }
                    if (!response.isSucceeded()) {
                        // Unless a grant or a clean-up decided first: a timeout's clean-up deletes this very key.
                        queueEntryGone();
                        return;
                    }
                    SessionLease current = this.session;
                    List<KeyValue> ahead = response.getGetResponses().get(0).getKvs();
                    if (current != null && QueueReads.decide(this, this.command.kind(), ahead, current, revision)) {
                        return;
                    }
                    ResourceWatch shared = this.watch;
                    if (shared == null || shared.isClosed()) {
                        // The shared watch failed (e.g. its member lost the leader): join or start a new one.
                        joinWatch();
                    }
                    scheduleRecheck();
                });
    }

    /** Stops the re-check and leaves the resource's shared watch: the attempt ended, or puts again. */
    private void stopWaiting() {
        ScheduledFuture<?> task = this.recheck;
        if (task != null) {
            task.cancel(false);
        }
        ResourceWatch shared = this.watch;
        this.watch = null;
        if (shared != null) {
            shared.unsubscribe(this);
        }
    }

    /** Subscribes to the resource's shared watch, starting one if there is none. */
    private void joinWatch() {
        ResourceWatch shared = this.with.watches().join(this.prefix, this);
        this.watch = shared;
        // Outside the registry's compute(): a decision may complete the attempt, whose clean-up touches it.
        shared.decide(this);
    }

    private void scheduleRecheck() {
        if (this.result.isDone()) {
            return;
        }
        ScheduledFuture<?> previous = this.recheck;
        if (previous != null) {
            previous.cancel(false);
        }
        // A safety net for a watch that broke or lagged; the watch normally answers first.
        this.recheck = this.calls
                .scheduler()
                .schedule(this::checkPredecessor, this.with.recheckInterval().toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void watchFailed() {
        this.calls.scheduler().execute(this::checkPredecessor);
    }

    @Override
    public void conflicts(LockKind ahead) {
        failAfterCleanup(new LockPermitsMismatchException(
                QueueWalk.conflictMessage(this.command.resource().value(), this.command.kind(), ahead)));
    }

    @Override
    public void queueEntryGone() {
        if (this.decided.compareAndSet(false, true)) {
            fail(new LockBackendUnavailableException("The queue entry of lock '" + this.command.resource()
                    + "' disappeared while waiting (session lease expired or force-released)"));
        }
    }

    @Override
    public void grant(SessionLease session, long revision) {
        // The first read, the watch, the re-check and a release's hand-over may each find the lock
        // free, and a timeout may be cleaning up: whichever comes first decides. A decision about a
        // key this attempt no longer has (it put again, see lookAgain) never grants: a lock is held
        // only with the revision, and so the fencing token, of the key that was judged.
        if (this.result.isDone()
                || revision == 0
                || revision != this.myRevision
                || !this.decided.compareAndSet(false, true)) {
            return;
        }
        if (revision != this.myRevision) {
            // It put again between the check and the claim. Its new key's decider may have found this one
            // deciding and left: once the new key is known, read what is ahead of it again.
            this.decided.set(false);
            if (this.myRevision != 0) {
                this.calls.scheduler().execute(this::checkPredecessor);
            }
            return;
        }
        if (session.isExpired()) {
            fail(new LockBackendUnavailableException(
                    "Session lease of lock '" + this.command.resource() + "' could not be kept alive while acquiring"));
            return;
        }
        boolean[] created = {false};
        Supplier<EtcdLock> hold = () -> this.with.held().computeIfAbsent(this.key, k -> {
            created[0] = true;
            return this.ops.lock(session, revision);
        });
        EtcdLock lock = this.with.deletes().claim(this.adoption, hold);
        if (lock == null) {
            lookAgain();
            return;
        }
        session.locks.add(lock);
        if (session.isExpired()) {
            // The deadline passed between the check and the registration: the session sweep may have missed it.
            lock.markLost(new LockLostException("Session lease of lock '" + lock.resource() + "' expired"));
        }
        if (created[0]) {
            this.with.heldKeys().registered(lock);
        }
        if (!this.result.complete(lock) && this.result.isCompletedExceptionally() && created[0]) {
            // The caller gave up (timeout, cancel) just as the lock came free: hand it straight back.
            // Never release a lock another path of this attempt, or another attempt, already handed out.
            this.with.release().accept(lock);
        }
    }

    /**
     * A removal of my key was registered while this attempt ran (a release, a clean-up): the key my
     * put found may be deleted a moment later, so it is never held. The remover deletes it; once
     * that settled, put again, which creates the key afresh or finds one that stays.
     */
    private void lookAgain() {
        stopWaiting();
        this.myRevision = 0;
        this.decided.set(false); // the deadline's timer may have found this attempt deciding and left it alone
        if (System.nanoTime() - this.command.deadlineNanos() >= 0) {
            deadlineReached();
            return;
        }
        this.with.deletes().lookAgain(this.adoption).whenComplete((settled, ignored) -> putOnSession());
    }

    /** Fails after etcd refused or failed the puts until the deadline, naming why it could not be reached. */
    private void failRefused(Throwable refusal, boolean nothingWritten) {
        CompletableFuture<String> because =
                this.unansweredBecause.isDone() ? this.unansweredBecause : this.calls.explain(refusal);
        because.thenAccept(reason -> fail(EtcdFailures.refusedUntilDeadline(
                this.calls.endpoints(),
                this.command.resource(),
                this.refusals.count(),
                refusal,
                nothingWritten && !this.sent.earlierUnanswered(),
                reason)));
    }

    private void deadlineReached() {
        Throwable refusal = this.refusals.last();
        if (refusal != null && this.myRevision == 0) {
            // The deadline came while a retry waited for its turn: say why it waited.
            failRefused(refusal, this.refusals.lastWroteNothing());
        } else if (this.sent.lastUnanswered() || this.myRevision == 0) {
            fail(EtcdFailures.unansweredUntilDeadline(
                    this.calls.endpoints(), this.command.resource(), this.unansweredBecause.getNow("")));
        } else {
            failAfterCleanup(new LockAcquisitionTimeoutException(
                    "Lock '" + this.command.resource() + "' stayed busy for the whole wait timeout of this request"));
        }
    }

    /** Deletes my queue entry first, so a caller that sees the failure sees no key of it. */
    private void failAfterCleanup(Throwable failure) {
        if (!this.decided.compareAndSet(false, true)) {
            return; // granted meanwhile: the caller gets the lock
        }
        long revision = this.myRevision;
        if (revision == 0 || this.with.held().containsKey(this.key) || this.result.isDone()) {
            fail(failure);
            return;
        }
        this.with
                .deletes()
                .deleteInBackground(this.key, revision, this.session)
                .whenComplete((deleted, error) -> fail(failure));
    }

    void fail(Throwable failure) {
        this.result.completeExceptionally(withOutcome(failure));
    }

    /** An unavailable store's failure, told apart as an unknown outcome when this attempt's put may have been applied. */
    private Throwable withOutcome(Throwable failure) {
        LockException known = EtcdFailures.lockExceptionIn(failure);
        boolean unavailable =
                known instanceof LockBackendUnavailableException && !(known instanceof LockOutcomeUnknownException);
        return (unavailable && putOutcomeUnknown()) ? EtcdFailures.outcomeUnknown(known, this.command) : failure;
    }

    /** Whether a put of this attempt may have written a key it does not know of ({@link SentPuts#mayHaveWritten}). */
    private boolean putOutcomeUnknown() {
        return this.myRevision == 0 && this.sent.mayHaveWritten();
    }

    /** Leaves nothing behind: deletes my key unless this backend holds it through another attempt. */
    private void abandon() {
        if (this.with.held().containsKey(this.key)) {
            return;
        }
        long revision = this.myRevision;
        SessionLease current = this.session;
        if (revision != 0) {
            this.with.deletes().deleteInBackground(this.key, revision, current);
        } else if (putOutcomeUnknown() && current != null) {
            // The put may have committed without us hearing of it. A retry with the same request id
            // within the grace period adopts the key; otherwise it is removed.
            long delay = this.command.generatedRequestId()
                    ? 0
                    : this.with.retryGrace().toNanos();
            this.with
                    .deletes()
                    .abandonLater(this.key, this.ops.markerBytes(current), this.ops.markerRecord(), current, delay);
        }
    }
}
