package dev.fencelock.etcd;

import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockException;
import dev.fencelock.LockLostException;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendHealth;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockAdministration;
import dev.fencelock.spi.LockBackend;
import dev.fencelock.spi.QueueEntry;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Locks on etcd, with the algorithm of etcd's {@code concurrency.Mutex} and a fencing token.
 *
 * <ul>
 *   <li><b>Acquire</b> is one transaction: create my key {@code <ns>/locks/<resource>/<requestId>}
 *       on the session lease unless it exists, and read the oldest key of the resource. If mine is
 *       the oldest I own the lock; my <b>fencing token is my key's create revision</b>, which etcd
 *       makes larger than every earlier revision of any key, deleted ones included.
 *   <li><b>Waiting</b>: FIFO by create revision. One watch per resource is shared by local
 *       waiters. It mirrors the resource's queue (a read after the watch is confirmed, then every
 *       put and delete event), so a release hands the lock to the next local waiter with no
 *       further read: a hand-off costs the release and the watch event.
 *   <li><b>Every write is guarded</b> by the key's create revision, so a retried request applies
 *       at most once and an old holder can never delete or confirm a newer holder's key.
 *   <li><b>No orphans</b>: an attempt that times out, is cancelled or fails with an unknown
 *       outcome deletes its key, retrying in the background while its session lives.
 * </ul>
 */
public final class EtcdLockBackend implements LockBackend, LockAdministration {

    private final EtcdCalls calls;

    private final boolean ownsClient;

    private final LockKeys keys;

    private final Duration recheckInterval;

    private final Duration retryGrace;

    private final String instanceId;

    private final Map<String, EtcdLock> held = new ConcurrentHashMap<>();

    private final SessionLeases sessions;

    private final ResourceWatches watches;

    private final Set<Attempt> inFlight = ConcurrentHashMap.newKeySet();

    private final DeleteBatch deleteBatch;

    private final PutBatch puts;

    private final GuardedDeletes deletes;

    EtcdLockBackend(EtcdLockBackendBuilder builder, Client client, boolean ownsClient) {
        this.calls = new EtcdCalls(client, builder.endpoints, builder.requestTimeout, builder.attemptTimeout);
        this.ownsClient = ownsClient;
        this.keys = new LockKeys(builder.namespace);
        this.recheckInterval = builder.recheckInterval;
        this.retryGrace = builder.retryGrace;
        this.instanceId = builder.instanceId;
        this.sessions = new SessionLeases(this.calls, this.held);
        this.watches = new ResourceWatches(this.calls);
        this.deleteBatch = new DeleteBatch(this.calls);
        this.puts = new PutBatch(this.calls, this.deleteBatch);
        this.deletes = new GuardedDeletes(this.calls, this.deleteBatch, this.held);
    }

    public static EtcdLockBackendBuilder builder() {
        return new EtcdLockBackendBuilder();
    }

    /** The jetcd client, for health checks and administration. */
    public Client client() {
        return this.calls.client();
    }

    /** The namespace all keys of this backend live under. */
    public String namespace() {
        return this.keys.namespace();
    }

    /** The configured endpoints. */
    public List<String> endpoints() {
        return this.calls.endpoints();
    }

    /** This process's identity as written into holder records. */
    @Override
    public String instanceId() {
        return this.instanceId;
    }

    /** The session leases this backend keeps alive, by TTL in seconds. */
    public Map<Long, SessionInfo> sessions() {
        Map<Long, SessionInfo> info = new java.util.TreeMap<>();
        this.sessions
                .live()
                .forEach((ttl, session) ->
                        info.put(ttl, new SessionInfo(session.leaseId, session.validFor(), session.locks.size())));
        return info;
    }

    /** The session leases as plain values, for health details that every JSON mapper renders alike. */
    private List<Map<String, Object>> sessionDetails() {
        List<Map<String, Object>> leases = new ArrayList<>();
        sessions().forEach((ttlSeconds, info) -> {
            Map<String, Object> lease = new java.util.LinkedHashMap<>();
            lease.put("leaseId", info.leaseId());
            lease.put("ttlSeconds", ttlSeconds);
            lease.put("validForMillis", Math.max(0, info.validFor().toMillis()));
            lease.put("locks", info.locks());
            leases.add(lease);
        });
        return leases;
    }

    /**
     * One session lease as seen locally.
     *
     * @param leaseId the etcd lease id
     * @param validFor how long its locks are valid without a further keep-alive
     * @param locks number of locks held on it
     */
    public record SessionInfo(long leaseId, Duration validFor, int locks) {}

    /** The key prefix of {@code resource}; for administration and tests. */
    public String resourcePrefix(String resource) {
        return this.keys.resourcePrefix(ResourceName.of(resource, Integer.MAX_VALUE));
    }

    // ---------------------------------------------------------------- acquire

    @Override
    public CompletableFuture<BackendLock> acquire(AcquireCommand command) {
        if (this.calls.isClosed()) {
            return CompletableFuture.failedFuture(new IllegalStateException("EtcdLockBackend is closed"));
        }
        Attempt attempt = new Attempt(command);
        this.inFlight.add(attempt);
        attempt.start();
        return attempt.result;
    }

    /** One acquisition from first request to lock, failure or cancellation. */
    private final class Attempt implements QueueWaiter {

        final AcquisitionOps ops;

        final AcquireCommand command;

        final String key;

        final String prefix;

        final CompletableFuture<BackendLock> result = new CompletableFuture<>();

        volatile @Nullable SessionLease session;

        /** Whether a put was sent whose outcome is not known. */
        volatile boolean outcomeUnknown;

        /** How often etcd refused this attempt's put without proposing it. */
        int refusals;

        /** Create revision of my key once known, else 0. */
        volatile long myRevision;

        volatile @Nullable ResourceWatch watch;

        volatile @Nullable ScheduledFuture<?> recheck;

        /**
         * Set by whichever ends the attempt first: a grant, or a clean-up before a timeout is
         * reported. Without it a timeout could delete the key of a lock granted a moment earlier.
         */
        final java.util.concurrent.atomic.AtomicBoolean decided = new java.util.concurrent.atomic.AtomicBoolean();

        Attempt(AcquireCommand command) {
            this.ops = new AcquisitionOps(keys, command, instanceId);
            this.command = command;
            this.key = this.ops.key;
            this.prefix = this.ops.prefix;
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
            // A retry with the same request id adopts the key an earlier attempt may have left.
            deletes.adopt(this.key);
            ScheduledFuture<?> deadline = calls.scheduler()
                    .schedule(this::deadlineReached, this.command.remainingNanos(), TimeUnit.NANOSECONDS);
            this.result.whenComplete((lock, failure) -> {
                inFlight.remove(this);
                deadline.cancel(false);
                ScheduledFuture<?> task = this.recheck;
                if (task != null) {
                    task.cancel(false);
                }
                ResourceWatch shared = this.watch;
                if (shared != null) {
                    shared.unsubscribe(this);
                }
                if (failure != null) {
                    abandon();
                }
            });
            sessions.session(this.command.ttlSeconds(), this.command.deadlineNanos())
                    .whenComplete((session, failure) -> {
                        if (failure != null) {
                            fail(calls.unavailable(
                                    "creating a session lease for lock '" + this.command.resource() + "'", failure));
                        } else {
                            this.session = session;
                            put(session);
                        }
                    });
        }

        void put(SessionLease session) {
            if (this.result.isDone()) {
                return;
            }
            this.outcomeUnknown = true;
            // With the resource's queue mirrored here already, the mirror decides and the Txn reads nothing.
            boolean readOwner = !this.command.waitForRelease() || !watches.isMirrored(this.prefix);
            puts.submit(new PutBatch.PutRequest(this.ops, session, readOwner, this.result))
                    .whenComplete((outcome, failure) -> {
                        if (failure != null) {
                            if (EtcdFailures.isKnownNotWritten(failure)) {
                                // Refused before anything was proposed, or never sent: no key can exist, so no
                                // abandon marker; back off and try again within the wait time.
                                this.outcomeUnknown = false;
                                putAgainLater(session, failure, true);
                            } else if (EtcdFailures.isNoAnswer(failure)
                                    && System.nanoTime() - this.command.deadlineNanos() < 0) {
                                // No answer in time (e.g. the member lost its leader): the guarded put is safe to
                                // send again; it creates my key or finds the one an earlier send created.
                                put(session);
                            } else if (EtcdFailures.isUnavailable(failure)) {
                                // The connection failed under the request (a member died, a GOAWAY): it may have
                                // been applied, so the outcome stays unknown, but a guarded resend is safe.
                                putAgainLater(session, failure, false);
                            } else {
                                fail(failure);
                            }
                            return;
                        }
                        this.outcomeUnknown = false;
                        try {
                            onPut(session, outcome);
                        } catch (RuntimeException ex) {
                            fail(ex);
                        }
                    });
        }

        /** Backs off (jittered, doubling from 20 ms up to 1 s) unless that passes the wait deadline. */
        private void putAgainLater(SessionLease session, Throwable refusal, boolean nothingWritten) {
            int refusals = ++this.refusals;
            long backOff = TimeUnit.MILLISECONDS.toNanos(20) << Math.min(refusals - 1, 6);
            long delay = Math.min(TimeUnit.SECONDS.toNanos(1), backOff);
            delay = delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1);
            if (this.result.isDone() || System.nanoTime() + delay - this.command.deadlineNanos() > 0) {
                fail(new LockBackendUnavailableException(
                        nothingWritten
                                ? "etcd " + calls.endpoints() + " refused the acquisition of lock '"
                                        + this.command.resource()
                                        + "' " + refusals + " times within its wait time (overloaded: "
                                        + EtcdFailures.reasonOf(refusal) + "); nothing was written"
                                : "etcd " + calls.endpoints() + " was unavailable for the acquisition of lock '"
                                        + this.command.resource() + "' within its wait time, after " + refusals
                                        + " tries: " + EtcdFailures.reasonOf(refusal),
                        refusal));
                return;
            }
            calls.scheduler().schedule(() -> put(session), delay, TimeUnit.NANOSECONDS);
        }

        void onPut(SessionLease session, PutBatch.PutOutcome outcome) {
            long revision;
            if (outcome.created()) {
                revision = outcome.revision();
            } else {
                KeyValue existing = outcome.existing();
                if (existing == null) {
                    fail(new LockException(
                            "Request id '" + this.command.requestId() + "' of lock '" + this.command.resource()
                                    + "' was abandoned after an earlier failure; use a new request id"));
                    return;
                }
                if (existing.getLease() != session.leaseId) {
                    // Not ours to delete: another session made this key.
                    fail(new LockException("Request id '" + this.command.requestId() + "' of lock '"
                            + this.command.resource() + "' is in use by another lease ("
                            + existing.getLease() + "); use a new request id"));
                    return;
                }
                revision = existing.getCreateRevision();
            }
            this.myRevision = revision;
            List<KeyValue> owner = outcome.owner();
            if (owner == null) {
                // Not read: the queue mirror decides, as for any waiter.
                joinWatch();
                scheduleRecheck();
            } else if (owner.isEmpty() || owner.get(0).getCreateRevision() == revision) {
                grant(session);
            } else if (!this.command.waitForRelease()) {
                failAfterCleanup(new LockAcquisitionTimeoutException(
                        "Lock '" + this.command.resource() + "' is held by someone else"));
            } else {
                // The resource's queue mirror decides from here; the periodic re-check is a safety net.
                joinWatch();
                scheduleRecheck();
            }
        }

        /** Reads the predecessor (the newest key older than mine), confirming my key still exists. */
        void checkPredecessor() {
            if (this.result.isDone()) {
                return;
            }
            long revision = this.myRevision;
            CompletableFuture<TxnResponse> txn = calls.client()
                    .getKVClient()
                    .txn()
                    .If(new Cmp(this.ops.keyBytes, Cmp.Op.EQUAL, CmpTarget.createRevision(revision)))
                    .Then(Op.get(
                            EtcdCalls.bytes(this.prefix),
                            GetOption.builder()
                                    .isPrefix(true)
                                    .withMaxCreateRevision(revision - 1)
                                    .withSortField(GetOption.SortTarget.CREATE)
                                    .withSortOrder(GetOption.SortOrder.DESCEND)
                                    .withKeysOnly(true)
                                    .withLimit(1)
                                    .build()))
                    .commit();
            calls.timed(txn, "waiting for lock '" + this.command.resource() + "'")
                    .whenComplete((response, failure) -> {
                        if (failure != null) {
                            // A failed read is not the end: retry until the deadline says so.
                            scheduleRecheck();
                            return;
                        }
                        if (!response.isSucceeded()) {
                            fail(new LockBackendUnavailableException(
                                    "The queue entry of lock '" + this.command.resource()
                                            + "' disappeared while waiting (session lease expired or force-released)"));
                            return;
                        }
                        List<KeyValue> predecessor =
                                response.getGetResponses().get(0).getKvs();
                        if (predecessor.isEmpty()) {
                            SessionLease current = this.session;
                            if (current != null) {
                                grant(current);
                            }
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

        /** Subscribes to the resource's shared watch, starting one if there is none. */
        private void joinWatch() {
            ResourceWatch shared = watches.join(this.prefix, this);
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
            this.recheck =
                    calls.scheduler().schedule(this::checkPredecessor, recheckInterval.toNanos(), TimeUnit.NANOSECONDS);
        }

        @Override
        public void watchFailed() {
            calls.scheduler().execute(this::checkPredecessor);
        }

        @Override
        public void queueEntryGone() {
            if (this.decided.compareAndSet(false, true)) {
                fail(new LockBackendUnavailableException("The queue entry of lock '" + this.command.resource()
                        + "' disappeared while waiting (session lease expired or force-released)"));
            }
        }

        @Override
        public void grant(SessionLease session) {
            if (this.result.isDone() || !this.decided.compareAndSet(false, true)) {
                // The first read, the watch and the re-check may each find the lock free, and a timeout
                // may be cleaning up: whichever comes first decides.
                return;
            }
            if (session.isExpired()) {
                fail(new LockBackendUnavailableException("Session lease of lock '" + this.command.resource()
                        + "' could not be kept alive while acquiring"));
                return;
            }
            boolean[] created = {false};
            EtcdLock lock = held.computeIfAbsent(this.key, k -> {
                created[0] = true;
                return new EtcdLock(this.command.resource(), this.command.requestId(), k, session, this.myRevision);
            });
            session.locks.add(lock);
            if (session.isExpired()) {
                // The deadline passed between the check and the registration: the session sweep may have missed it.
                lock.markLost(new LockLostException("Session lease of lock '" + lock.resource() + "' expired"));
            }
            if (!this.result.complete(lock) && this.result.isCompletedExceptionally() && created[0]) {
                // The caller gave up (timeout, cancel) just as the lock came free: hand it straight back.
                // Never release a lock another path of this attempt, or another attempt, already handed out.
                release(lock);
            }
        }

        void deadlineReached() {
            if (this.outcomeUnknown || this.myRevision == 0) {
                fail(new LockBackendUnavailableException(
                        "etcd " + calls.endpoints() + " did not answer within the wait time" + " for lock '"
                                + this.command.resource() + "'; nothing was granted"));
            } else {
                failAfterCleanup(new LockAcquisitionTimeoutException("Lock '" + this.command.resource()
                        + "' stayed busy for the whole wait timeout of this request"));
            }
        }

        /** Deletes my queue entry first, so a caller that sees the failure sees no key of it. */
        void failAfterCleanup(Throwable failure) {
            if (!this.decided.compareAndSet(false, true)) {
                return; // granted meanwhile: the caller gets the lock
            }
            long revision = this.myRevision;
            if (revision == 0 || held.containsKey(this.key) || this.result.isDone()) {
                fail(failure);
                return;
            }
            deletes.deleteInBackground(this.key, revision, this.session)
                    .whenComplete((deleted, error) -> fail(failure));
        }

        void fail(Throwable failure) {
            this.result.completeExceptionally(failure);
        }

        /** Leaves nothing behind: deletes my key unless this backend holds it through another attempt. */
        void abandon() {
            if (held.containsKey(this.key)) {
                return;
            }
            long revision = this.myRevision;
            SessionLease current = this.session;
            if (revision != 0) {
                deletes.deleteInBackground(this.key, revision, current);
            } else if (this.outcomeUnknown && current != null) {
                // The put may have committed without us hearing of it. A retry with the same request id
                // within the grace period adopts the key; otherwise it is removed.
                long delay = isGeneratedRequestId(this.command.requestId()) ? 0 : retryGrace.toNanos();
                deletes.abandonLater(this.key, this.ops.markerBytes, current, delay);
            }
        }
    }

    private static boolean isGeneratedRequestId(String requestId) {
        return requestId.length() == 36 && requestId.charAt(8) == '-' && requestId.charAt(14) == '4';
    }

    // ---------------------------------------------------------------- renew and release

    @Override
    public CompletableFuture<Long> renew(BackendLock lock) {
        EtcdLock etcdLock = (EtcdLock) lock;
        SessionLease session = etcdLock.session;
        if (lock.isLost()) {
            return CompletableFuture.failedFuture(lostCause(lock));
        }
        long sent = System.nanoTime();
        CompletableFuture<TxnResponse> check = calls.timed(
                this.calls
                        .client()
                        .getKVClient()
                        .txn()
                        .If(new Cmp(
                                EtcdCalls.bytes(etcdLock.key),
                                Cmp.Op.EQUAL,
                                CmpTarget.createRevision(lock.fencingToken())))
                        .commit(),
                "confirming lock '" + lock.resource() + "'");
        CompletableFuture<Long> keepAlive = calls.timed(
                        this.calls.client().getLeaseClient().keepAliveOnce(session.leaseId),
                        "renewing the lease of lock '" + lock.resource() + "'")
                .thenApply(response -> response.getTTL());
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

    @Override
    public CompletableFuture<Boolean> release(BackendLock lock) {
        EtcdLock etcdLock = (EtcdLock) lock;
        DeleteRequest request =
                new DeleteRequest(etcdLock.key, lock.fencingToken(), this.watches.successorOf(etcdLock));
        forget(etcdLock);
        return this.deletes.retriedOnFailure(request, etcdLock.session, this.deleteBatch.submit(request));
    }

    /**
     * Releases without sending at once: the delete rides on this client's next acquisition Txn,
     * or goes on its own after {@link PutBatch#RIDE_LINGER_NANOS}, or after
     * {@link PutBatch#HAND_OFF_LINGER_NANOS} when a local waiter is next in line (it is handed the lock
     * when the Txn commits, as with {@link #release}).
     */
    @Override
    public CompletableFuture<Boolean> releaseDeferred(BackendLock lock) {
        EtcdLock etcdLock = (EtcdLock) lock;
        if (this.calls.isClosed()) {
            return release(lock);
        }
        Successor next = this.watches.successorOf(etcdLock);
        forget(etcdLock);
        DeleteRequest request = new DeleteRequest(etcdLock.key, lock.fencingToken(), next);
        return this.deletes.retriedOnFailure(request, etcdLock.session, this.puts.defer(request));
    }

    private void forget(EtcdLock lock) {
        lock.markReleased();
        this.held.remove(lock.key, lock);
        lock.session.locks.remove(lock);
    }

    // ---------------------------------------------------------------- operations

    @Override
    public CompletableFuture<BackendHealth> health(Duration timeout) {
        Map<String, Object> details = new ConcurrentHashMap<>();
        details.put("endpoints", this.calls.endpoints());
        details.put("namespace", this.keys.namespace());
        CompletableFuture<Boolean> quorum = calls.timed(
                        this.calls
                                .client()
                                .getKVClient()
                                .get(
                                        EtcdCalls.bytes(this.keys.namespace() + "/health"),
                                        GetOption.builder().withCountOnly(true).build()),
                        "a health read",
                        timeout)
                .handle((response, failure) -> {
                    if (failure != null) {
                        details.put(
                                "error",
                                calls.unavailable("a health read", failure).getMessage());
                    }
                    return failure == null;
                });
        CompletableFuture<Void> members = calls.timed(
                        this.calls.client().getClusterClient().listMember(), "listing members", timeout)
                .thenAccept(response -> {
                    List<String> names = new ArrayList<>();
                    response.getMembers().forEach(member -> names.add(member.getName()));
                    details.put("members", names);
                    details.put("memberCount", names.size());
                })
                .exceptionally(failure -> null);
        CompletableFuture<Void> leader =
                leaderOf(timeout).thenAccept(id -> details.put("leaderId", id)).exceptionally(failure -> null);
        return CompletableFuture.allOf(quorum, members, leader).thenApply(ignored -> {
            details.put("sessions", sessionDetails());
            details.put("heldLocks", this.held.size());
            return new BackendHealth(quorum.join(), details);
        });
    }

    /** The leader's member id as one endpoint reports it, in hex as etcd prints it. */
    private CompletableFuture<String> leaderOf(Duration timeout) {
        CompletableFuture<String> result = new CompletableFuture<>();
        AtomicFailures failures = new AtomicFailures(this.calls.endpoints().size());
        for (String endpoint : this.calls.endpoints()) {
            calls.timed(this.calls.client().getMaintenanceClient().statusMember(endpoint), "reading status", timeout)
                    .whenComplete((status, failure) -> {
                        if (failure == null && status.getLeader() != 0) {
                            result.complete(Long.toHexString(status.getLeader()));
                        } else if (failures.failedAll()) {
                            result.completeExceptionally(
                                    new LockBackendUnavailableException("no endpoint knows a leader"));
                        }
                    });
        }
        return result;
    }

    /** Counts failed answers; true once all of them failed. */
    private static final class AtomicFailures {

        private final java.util.concurrent.atomic.AtomicInteger left;

        AtomicFailures(int total) {
            this.left = new java.util.concurrent.atomic.AtomicInteger(total);
        }

        boolean failedAll() {
            return this.left.decrementAndGet() == 0;
        }
    }

    @Override
    public CompletableFuture<List<QueueEntry>> queue(ResourceName resource) {
        return calls.timed(
                        this.calls
                                .client()
                                .getKVClient()
                                .get(
                                        EtcdCalls.bytes(this.keys.resourcePrefix(resource)),
                                        GetOption.builder()
                                                .isPrefix(true)
                                                .withSortField(GetOption.SortTarget.CREATE)
                                                .withSortOrder(GetOption.SortOrder.ASCEND)
                                                .build()),
                        "reading the queue of '" + resource + "'")
                .thenApply(response -> {
                    List<QueueEntry> entries = new ArrayList<>();
                    for (KeyValue kv : response.getKvs()) {
                        String key = kv.getKey().toString(StandardCharsets.UTF_8);
                        entries.add(new QueueEntry(
                                this.keys.requestIdOf(key),
                                kv.getLease(),
                                kv.getCreateRevision(),
                                kv.getValue().toString(StandardCharsets.UTF_8)));
                    }
                    return entries;
                });
    }

    @Override
    public CompletableFuture<java.util.Optional<QueueEntry>> forceRelease(ResourceName resource) {
        return queue(resource).thenCompose(entries -> {
            if (entries.isEmpty()) {
                return CompletableFuture.completedFuture(java.util.Optional.<QueueEntry>empty());
            }
            QueueEntry holder = entries.get(0);
            String key = this.keys.key(resource, holder.requestId());
            return this.deleteBatch
                    .deleteGuarded(new DeleteRequest(key, holder.fencingToken(), null))
                    .thenApply(deleted -> {
                        if (!deleted) {
                            return java.util.Optional.<QueueEntry>empty();
                        }
                        EtcdLock local = this.held.remove(key);
                        if (local != null) {
                            local.session.locks.remove(local);
                            local.markLost(new LockLostException("Lock '" + resource + "' (token "
                                    + holder.fencingToken() + ") was force-released by an operator"));
                        }
                        return java.util.Optional.of(holder);
                    });
        });
    }

    @Override
    public String describe() {
        return "etcd" + this.calls.endpoints() + this.keys.namespace();
    }

    /**
     * Revokes every session lease (which deletes all keys on it in one step) and closes the
     * client. With thousands of held locks the revoke briefly stalls etcd's writes; release
     * locks first where that matters.
     */
    @Override
    public void close() {
        if (this.calls.isClosed()) {
            return;
        }
        this.calls.markClosed();
        this.puts.flushRiders();
        this.deletes.cancelPending();
        for (Attempt attempt : new ArrayList<>(this.inFlight)) {
            attempt.fail(new LockException("Lock client closed while acquiring '" + attempt.command.resource() + "'"));
        }
        this.sessions.revokeAll();
        this.watches.closeAll();
        this.held.clear();
        this.sessions.clear();
        this.calls.shutdown();
        if (this.ownsClient) {
            this.calls.client().close();
        }
    }
}
