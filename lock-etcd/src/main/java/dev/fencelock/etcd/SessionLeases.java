package dev.fencelock.etcd;

import dev.fencelock.LockLostException;
import dev.fencelock.spi.WriteOperation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session leases of one backend, one per TTL: granting them, one keep-alive round per TTL/3
 * timed from its send, the local deadline that decides when their locks are lost, and expiry.
 * jetcd's keep-alive observer is not used: it can stop silently, and the deadline here is what
 * invariant 6 (uncertain validity means lost) rests on.
 */
final class SessionLeases {

    private static final Logger logger = LoggerFactory.getLogger(SessionLeases.class);

    private final EtcdCalls calls;

    /** The locks this backend holds, by key: an expired session's locks leave it. */
    private final Map<String, EtcdLock> held;

    private final Map<Long, CompletableFuture<SessionLease>> sessions = new ConcurrentHashMap<>();

    SessionLeases(EtcdCalls calls, Map<String, EtcdLock> held) {
        this.calls = calls;
        this.held = held;
    }

    /** The live session for {@code ttlSeconds}, granting a new one if there is none (or it died). */
    CompletableFuture<SessionLease> session(long ttlSeconds, long deadlineNanos) {
        for (int grants = 0; ; grants++) {
            CompletableFuture<SessionLease> future = this.sessions.computeIfAbsent(ttlSeconds, this::grantSession);
            SessionLease session = grantedOrNull(future);
            if (future.isCompletedExceptionally() || (session != null && session.isExpired())) {
                // Do not cache a failure or a dead lease: grant a fresh one, once per call, so that a
                // grant failing at once cannot spin.
                this.sessions.remove(ttlSeconds, future);
                if (grants == 0 && System.nanoTime() - deadlineNanos < 0) {
                    continue;
                }
            }
            return future;
        }
    }

    /** The granted sessions that have not expired, by TTL in seconds. */
    SortedMap<Long, SessionLease> live() {
        SortedMap<Long, SessionLease> live = new TreeMap<>();
        this.sessions.forEach((ttl, future) -> {
            SessionLease session = grantedOrNull(future);
            if (session != null && !session.isExpired()) {
                live.put(ttl, session);
            }
        });
        return live;
    }

    /**
     * The session a grant produced, or {@code null} while it is pending or when it failed.
     * ({@code getNow} would throw for a failed grant, and a failed grant must never stay cached.)
     */
    private static @Nullable SessionLease grantedOrNull(CompletableFuture<SessionLease> future) {
        return (future.isDone() && !future.isCompletedExceptionally()) ? future.join() : null;
    }

    private CompletableFuture<SessionLease> grantSession(long ttlSeconds) {
        long sent = System.nanoTime();
        return this.calls
                .timed(
                        () -> this.calls.client().getLeaseClient().grant(ttlSeconds),
                        "granting a " + ttlSeconds + "s lease")
                .thenApply(response -> {
                    SessionLease session = new SessionLease(response.getID(), ttlSeconds, response.getTTL(), sent);
                    logger.debug("Session lease {} granted ({}s)", session.leaseId, ttlSeconds);
                    scheduleKeepAlive(session, session.keepAlivePeriodNanos());
                    scheduleDeadline(session);
                    return session;
                });
    }

    private void scheduleKeepAlive(SessionLease session, long delayNanos) {
        if (this.calls.isClosed() || session.isExpired()) {
            return;
        }
        // Jitter spreads the keep-alives of many clients started together.
        long jitter = (long) (delayNanos * 0.1 * (ThreadLocalRandom.current().nextDouble() - 0.5));
        session.keepAliveTask = this.calls
                .scheduler()
                .schedule(
                        () -> {
                            // The cadence does not wait for answers: a slow answer must not delay the next try.
                            scheduleKeepAlive(session, session.keepAlivePeriodNanos());
                            sendKeepAlive(session);
                        },
                        delayNanos + jitter,
                        TimeUnit.NANOSECONDS);
    }

    private void sendKeepAlive(SessionLease session) {
        if (this.calls.isClosed() || session.isExpired()) {
            return;
        }
        long sent = System.nanoTime();
        // An answer helps for as long as the lease may still be alive, so wait that long for it.
        Duration timeout = Duration.ofNanos(Math.max(
                session.keepAlivePeriodNanos(),
                Math.min(this.calls.requestTimeout().toNanos(), TimeUnit.SECONDS.toNanos(session.ttlSeconds))));
        this.calls
                .write(
                        () -> this.calls.client().getLeaseClient().keepAliveOnce(session.leaseId),
                        "keeping lease alive",
                        timeout,
                        WriteOperation.RENEW)
                .whenComplete((response, failure) -> {
                    if (failure != null) {
                        logger.debug("Keep-alive of lease {} failed: {}", session.leaseId, failure.toString());
                        this.calls.events().renewalFailed(failure);
                        // Retry soon, unless a later keep-alive already succeeded: the local deadline,
                        // not this failure, decides when locks are lost.
                        if (!session.confirmedSince(sent)) {
                            this.calls
                                    .scheduler()
                                    .schedule(
                                            () -> {
                                                if (!session.confirmedSince(sent)) {
                                                    sendKeepAlive(session);
                                                }
                                            },
                                            500,
                                            TimeUnit.MILLISECONDS);
                        }
                    } else if (response.getTTL() <= 0) {
                        expire(session, "etcd reports lease " + session.leaseId + " expired");
                    } else {
                        session.confirmed(sent, response.getTTL());
                        scheduleDeadline(session);
                    }
                });
    }

    private void scheduleDeadline(SessionLease session) {
        ScheduledFuture<?> previous = session.deadlineTask;
        if (previous != null) {
            previous.cancel(false);
        }
        long remaining = session.validUntilNanos() - System.nanoTime();
        session.deadlineTask = this.calls
                .scheduler()
                .schedule(
                        () -> {
                            if (!expireIfPastDeadline(session)) {
                                scheduleDeadline(session);
                            }
                        },
                        Math.max(0, remaining),
                        TimeUnit.NANOSECONDS);
    }

    /**
     * Expires {@code session} now if its local deadline has passed. A process that was paused (a
     * long GC, SIGSTOP) wakes up with its deadline passed, and its own threads may release a lock
     * before the deadline task runs: the session must be expired first, so every lock on it is
     * lost, and counted, together.
     *
     * @return whether the deadline had passed
     */
    boolean expireIfPastDeadline(SessionLease session) {
        if (System.nanoTime() - session.validUntilNanos() < 0) {
            return false;
        }
        expire(session, "no keep-alive of lease " + session.leaseId + " was confirmed before its local deadline");
        return true;
    }

    /** Every lock on the session is lost; new acquisitions get a new session. */
    void expire(SessionLease session, String reason) {
        if (!session.expire()) {
            return;
        }
        this.sessions.computeIfPresent(
                session.ttlSeconds, (ttl, future) -> grantedOrNull(future) == session ? null : future);
        cancel(session.keepAliveTask);
        cancel(session.deadlineTask);
        logger.warn(
                "Session lease {} lost ({}); {} lock(s) on it are lost", session.leaseId, reason, session.locks.size());
        this.calls.events().leaseExpired(session.locks.size());
        for (EtcdLock lock : new ArrayList<>(session.locks)) {
            this.held.remove(lock.key, lock);
            lock.markLost(new LockLostException(
                    "Lock '" + lock.resource() + "' (token " + lock.fencingToken() + ") was lost: " + reason));
        }
        session.locks.clear();
        // If etcd still has the lease, its keys would block others until it expires: revoke it.
        this.calls
                .timed(() -> this.calls.client().getLeaseClient().revoke(session.leaseId), "revoking a lost lease")
                .exceptionally(failure -> null);
    }

    /**
     * Ends every session on close: its locks count as released, and revoking its lease deletes all
     * its keys in one step. Waits a little longer than the request timeout for etcd to confirm.
     */
    void revokeAll() {
        List<CompletableFuture<?>> revokes = new ArrayList<>();
        for (CompletableFuture<SessionLease> future : this.sessions.values()) {
            SessionLease session = grantedOrNull(future);
            if (session != null && session.expire()) {
                cancel(session.keepAliveTask);
                cancel(session.deadlineTask);
                session.locks.forEach(EtcdLock::markReleased);
                revokes.add(this.calls
                        .timed(() -> this.calls.client().getLeaseClient().revoke(session.leaseId), "revoking a lease")
                        .exceptionally(failure -> null));
            }
        }
        try {
            CompletableFuture.allOf(revokes.toArray(CompletableFuture[]::new))
                    .get(this.calls.requestTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException ex) {
            logger.debug("Revoking session leases on close did not finish: {}", ex.toString());
        }
    }

    /** Forgets every session; the last step of closing. */
    void clear() {
        this.sessions.clear();
    }

    private static void cancel(@Nullable ScheduledFuture<?> task) {
        if (task != null) {
            task.cancel(false);
        }
    }
}
