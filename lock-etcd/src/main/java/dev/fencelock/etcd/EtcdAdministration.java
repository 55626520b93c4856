package dev.fencelock.etcd;

import dev.fencelock.LockException;
import dev.fencelock.LockLostException;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.BackendHealth;
import dev.fencelock.spi.QueueEntry;
import dev.fencelock.spi.StoreCapacity;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.maintenance.StatusResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What operators ask of the etcd backend: health (quorum read, members, leader, sessions), a
 * resource's queue, and force-release of its holder. Reads here are linearizable; force-release
 * is a guarded delete like any release, so it never removes a newer holder's key.
 */
final class EtcdAdministration {

    private static final Logger logger = LoggerFactory.getLogger(EtcdAdministration.class);

    private final EtcdCalls calls;

    private final LockKeys keys;

    private final SessionLeases sessions;

    private final DeleteBatch deletes;

    /** The locks this backend holds, by key: a force-released one is marked lost at once. */
    private final Map<String, EtcdLock> held;

    private final StoreCapacityProbe capacity;

    EtcdAdministration(
            EtcdCalls calls,
            LockKeys keys,
            SessionLeases sessions,
            DeleteBatch deletes,
            Map<String, EtcdLock> held,
            StoreCapacityProbe capacity) {
        this.calls = calls;
        this.keys = keys;
        this.sessions = sessions;
        this.deletes = deletes;
        this.held = held;
        this.capacity = capacity;
    }

    /**
     * Health: UP when a linearizable read of {@code <ns>/health} reaches a quorum in time. Members,
     * leader and reachable endpoints are details; when etcd does not let this user list them, the
     * details say so and the health is still decided by the read alone. The database's size, alarms
     * and compaction ({@link StoreCapacityProbe}) come with it, for the caller to judge.
     */
    CompletableFuture<BackendHealth> health(Duration timeout) {
        Map<String, Object> details = new ConcurrentHashMap<>();
        details.put("endpoints", this.calls.endpoints());
        details.put("namespace", this.keys.namespace());
        CompletableFuture<String> unansweredBecause = new CompletableFuture<>();
        CompletableFuture<Boolean> answered = new CompletableFuture<>();
        ScheduledFuture<?> probe =
                this.calls.probeBefore(timeout.toNanos(), () -> !answered.isDone(), unansweredBecause);
        CompletableFuture<Boolean> quorum = this.calls
                .timed(
                        () -> this.calls
                                .client()
                                .getKVClient()
                                .get(
                                        EtcdCalls.bytes(this.keys.namespace() + "/health"),
                                        GetOption.builder().withCountOnly(true).build()),
                        "a health read",
                        timeout)
                .handle((response, failure) -> {
                    answered.complete(failure == null);
                    probe.cancel(false);
                    return failure;
                })
                .thenCompose(failure -> {
                    details.put("quorum", failure == null);
                    if (failure == null) {
                        return CompletableFuture.completedFuture(true);
                    }
                    String error =
                            this.calls.unavailable("a health read", failure).getMessage();
                    CompletableFuture<String> reason =
                            unansweredBecause.isDone() ? unansweredBecause : this.calls.explain(failure);
                    return reason.thenApply(because -> {
                        details.put("error", withReason(error, because));
                        return false;
                    });
                });
        CompletableFuture<Void> members = this.calls
                .timed(() -> this.calls.client().getClusterClient().listMember(), "listing members", timeout)
                .handle((response, failure) -> {
                    if (failure != null) {
                        details.put(
                                "membersError",
                                this.calls
                                        .unavailable("listing members", failure)
                                        .getMessage());
                        return null;
                    }
                    List<String> names = new ArrayList<>();
                    response.getMembers().forEach(member -> names.add(member.getName()));
                    details.put("members", names);
                    details.put("memberCount", names.size());
                    return null;
                });
        CompletableFuture<CompactionTracker.Compaction> compaction = this.capacity.compaction(timeout);
        CompletableFuture<List<StatusResponse>> statuses = endpointStatuses(timeout, details);
        CompletableFuture<@Nullable StoreCapacity> capacity = statuses.thenCombine(compaction, this.capacity::capacity)
                .handle((found, failure) -> {
                    if (failure != null) {
                        Throwable cause = (failure.getCause() != null) ? failure.getCause() : failure;
                        details.put("capacityError", String.valueOf(cause.getMessage()));
                        return null;
                    }
                    details.put("capacity", found.details());
                    return found;
                });
        return CompletableFuture.allOf(quorum, members, capacity).thenApply(ignored -> {
            details.put("sessions", sessionDetails());
            details.put("heldLocks", this.held.size());
            return new BackendHealth(quorum.join(), details, capacity.join());
        });
    }

    /** etcd's revision as a linearizable read reports it: at least every create revision, so every token, so far. */
    CompletableFuture<Long> currentRevision() {
        return this.calls
                .timed(
                        () -> this.calls
                                .client()
                                .getKVClient()
                                .get(
                                        EtcdCalls.bytes(this.keys.namespace() + "/health"),
                                        GetOption.builder().withCountOnly(true).build()),
                        "reading the current revision")
                .thenApply((GetResponse response) -> response.getHeader().getRevision());
    }

    private static String withReason(String error, String reason) {
        return reason.isEmpty() ? error : error + "." + reason;
    }

    /** The session leases as plain values, for health details that every JSON mapper renders alike. */
    private List<Map<String, Object>> sessionDetails() {
        List<Map<String, Object>> leases = new ArrayList<>();
        this.sessions.live().forEach((ttlSeconds, session) -> {
            Map<String, Object> lease = new LinkedHashMap<>();
            lease.put("leaseId", session.leaseId);
            lease.put("ttlSeconds", ttlSeconds);
            lease.put("validForMillis", Math.max(0, session.validFor().toMillis()));
            lease.put("lastKeepAliveAgeMillis", session.sinceLastConfirmed().toMillis());
            lease.put("locks", session.locks.size());
            leases.add(lease);
        });
        return leases;
    }

    /**
     * Asks every endpoint for its status: how many answer ({@code endpointsReachable}) and the
     * leader's member id as they report it, in hex as etcd prints it ({@code leaderId}). Completes
     * with the statuses that came, in no particular order.
     */
    private CompletableFuture<List<StatusResponse>> endpointStatuses(Duration timeout, Map<String, Object> details) {
        List<String> endpoints = this.calls.endpoints();
        AtomicInteger reachable = new AtomicInteger();
        List<StatusResponse> answered = new CopyOnWriteArrayList<>();
        List<CompletableFuture<?>> asked = new ArrayList<>();
        for (String endpoint : endpoints) {
            asked.add(this.calls
                    .timed(
                            () -> this.calls.client().getMaintenanceClient().statusMember(endpoint),
                            "reading the status of " + endpoint,
                            timeout)
                    .handle((status, failure) -> {
                        if (failure == null) {
                            reachable.incrementAndGet();
                            answered.add(status);
                            if (status.getLeader() != 0) {
                                details.putIfAbsent("leaderId", Long.toHexString(status.getLeader()));
                            }
                        } else {
                            details.putIfAbsent(
                                    "statusError",
                                    this.calls
                                            .unavailable("reading the status of " + endpoint, failure)
                                            .getMessage());
                        }
                        return null;
                    }));
        }
        return CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            details.put("endpointsReachable", reachable.get());
            details.put("endpointCount", endpoints.size());
            return List.copyOf(answered);
        });
    }

    /**
     * Checks that etcd lets this client do what locking needs, without writing anything: one Txn
     * whose compare never holds, with puts under {@code <ns>/locks/} and {@code <ns>/abandoned/} and
     * prefix reads of both in the branch that never runs. etcd checks the permissions of every
     * request in both branches of a Txn, so it refuses this one exactly when it would refuse locking.
     */
    /**
     * {@link #verifyAccess} waited for: {@code true} when it passed, {@code false} when etcd could
     * not be reached (locking fails until it can); throws when etcd refused the credentials, the
     * certificate or the permissions, or the TLS handshake failed.
     */
    boolean checkAccess(Duration timeout) {
        try {
            verifyAccess(timeout).get();
            return true;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockException("Interrupted while checking access to etcd " + this.calls.endpoints(), ex);
        } catch (ExecutionException ex) {
            LockException failure = this.calls.unavailable("checking access", ex.getCause());
            if (EtcdRefusals.isFinal(failure)
                    || !(EtcdFailures.isUnavailable(failure) || EtcdFailures.isNoAnswer(failure))) {
                throw failure;
            }
            logger.debug("{}; locking fails until etcd can be reached", failure.getMessage());
            return false;
        }
    }

    CompletableFuture<Void> verifyAccess(Duration timeout) {
        String locks = this.keys.locksPrefix();
        String abandoned = this.keys.namespace() + "/abandoned/";
        ByteSequence probe = EtcdCalls.bytes(locks + ".access-check");
        GetOption countPrefix =
                GetOption.builder().isPrefix(true).withCountOnly(true).build();
        return this.calls
                .timed(
                        () -> this.calls
                                .client()
                                .getKVClient()
                                .txn()
                                .If(new Cmp(probe, Cmp.Op.LESS, CmpTarget.version(0)))
                                .Then(
                                        Op.put(probe, ByteSequence.EMPTY, PutOption.DEFAULT),
                                        Op.put(
                                                EtcdCalls.bytes(abandoned + ".access-check"),
                                                ByteSequence.EMPTY,
                                                PutOption.DEFAULT),
                                        Op.get(EtcdCalls.bytes(locks), countPrefix),
                                        Op.get(EtcdCalls.bytes(abandoned), countPrefix))
                                .commit(),
                        "checking access to the keys under '" + this.keys.namespace() + "/'",
                        timeout)
                .thenApply(response -> null);
    }

    CompletableFuture<List<QueueEntry>> queue(ResourceName resource) {
        return keysOf(resource)
                .thenApply(kvs -> kvs.stream().map(EtcdAdministration::entry).toList());
    }

    private static QueueEntry entry(KeyValue kv) {
        String key = kv.getKey().toString(StandardCharsets.UTF_8);
        return new QueueEntry(
                LockKeys.requestIdOf(key),
                kv.getLease(),
                kv.getCreateRevision(),
                kv.getValue().toString(StandardCharsets.UTF_8),
                LockKeys.kindOf(key));
    }

    /** The keys of {@code resource}'s queue with their holder records, oldest first. */
    private CompletableFuture<List<KeyValue>> keysOf(ResourceName resource) {
        return this.calls
                .timed(
                        () -> this.calls
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
                .thenApply(response -> response.getKvs());
    }

    /** Deletes the oldest key, which always holds (with shared locks and semaphores, one of several holders). */
    CompletableFuture<Optional<QueueEntry>> forceRelease(ResourceName resource) {
        return keysOf(resource).thenCompose(kvs -> {
            if (kvs.isEmpty()) {
                return CompletableFuture.completedFuture(Optional.<QueueEntry>empty());
            }
            QueueEntry holder = entry(kvs.get(0));
            String key = kvs.get(0).getKey().toString(StandardCharsets.UTF_8);
            return this.deletes
                    .deleteGuarded(new DeleteRequest(key, holder.fencingToken(), null))
                    .thenApply(deleted -> {
                        if (!deleted) {
                            return Optional.<QueueEntry>empty();
                        }
                        EtcdLock local = this.held.remove(key);
                        if (local != null) {
                            local.session.locks.remove(local);
                            local.markLost(new LockLostException("Lock '" + resource + "' (token "
                                    + holder.fencingToken() + ") was force-released by an operator"));
                        }
                        return Optional.of(holder);
                    });
        });
    }
}
