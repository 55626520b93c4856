package dev.fencelock.etcd;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockException;
import dev.fencelock.LockStoreAccessDeniedException;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendHealth;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockAdministration;
import dev.fencelock.spi.LockBackend;
import dev.fencelock.spi.QueueEntry;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

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
 *
 * <p>This type wires the pieces and holds the entry points. Where each part of the protocol lives:
 * {@link AcquireAttempt} (one acquisition), {@link LockReleases} and {@link LockRenewals} (release
 * and {@code renew()} of a held lock), {@link PutBatch} and {@link DeleteBatch} (shared
 * Txns, deferred releases), {@link GuardedDeletes} (background deletes, abandon markers), {@link
 * SessionLeases} (leases, keep-alives, local deadline), {@link ResourceWatch} and {@link
 * QueueMirror} (the shared watch and the queue it mirrors), {@link HeldKeysWatch} (a holder
 * learns that its key was deleted), {@link EtcdFailures} (what a failure says about a write),
 * {@link EtcdAdministration} (health, queue, force-release), {@link NamespaceRegistry} (namespaces
 * never nest).
 */
public final class EtcdLockBackend implements LockBackend, LockAdministration {

    private final EtcdCalls calls;

    private final boolean ownsClient;

    private final LockKeys keys;

    private final String instanceId;

    private final Map<String, EtcdLock> held = new ConcurrentHashMap<>();

    private final Set<AcquireAttempt> inFlight = ConcurrentHashMap.newKeySet();

    private final SessionLeases sessions;

    private final ResourceWatches watches;

    private final DeleteBatch deleteBatch;

    private final PutBatch puts;

    private final GuardedDeletes deletes;

    private final EtcdAdministration administration;

    private final HeldKeysWatch heldKeys;

    private final AttemptCollaborators attempts;

    private final LockRenewals renewals;

    private final LockReleases releases;

    EtcdLockBackend(EtcdLockBackendBuilder builder, Client client, boolean ownsClient, EtcdRefusals.Identity identity) {
        this.calls = new EtcdCalls(
                client, identity, builder.requestTimeout, builder.attemptTimeout, builder.eventListener());
        this.ownsClient = ownsClient;
        this.keys = new LockKeys(builder.namespace);
        this.instanceId = builder.instanceId;
        this.sessions = new SessionLeases(this.calls, this.held);
        this.watches = new ResourceWatches(this.calls);
        this.deleteBatch = new DeleteBatch(this.calls);
        this.puts = new PutBatch(this.calls, this.deleteBatch);
        this.deletes = new GuardedDeletes(this.calls, this.deleteBatch, this.held, builder.abandonMarkerLifetime);
        this.administration = new EtcdAdministration(this.calls, this.keys, this.sessions, this.deleteBatch, this.held);
        this.heldKeys = new HeldKeysWatch(this.calls, this.keys.locksPrefix(), this.held);
        this.renewals = new LockRenewals(this.calls, this.sessions);
        this.releases =
                new LockReleases(this.calls, this.watches, this.deleteBatch, this.puts, this.deletes, this.held);
        new OrphanSweep(
                        this.calls,
                        this.sessions,
                        this.deletes,
                        this.held,
                        this.keys.locksPrefix(),
                        key -> this.inFlight.stream()
                                .anyMatch(attempt -> attempt.key().equals(key)),
                        builder.sweepInterval)
                .start();
        this.attempts = new AttemptCollaborators(
                this.calls,
                this.sessions,
                this.puts,
                this.watches,
                this.deletes,
                this.heldKeys,
                this.held,
                this::release,
                attempt -> this.inFlight.stream()
                        .anyMatch(other -> other != attempt && other.key().equals(attempt.key())),
                builder.recheckInterval,
                builder.retryGrace);
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

    /**
     * Records this backend's namespace in the cluster's namespace registry (keys under {@code
     * fencelock-namespaces/}) and completes with the registered namespaces that nest with it, such
     * as {@code /fencelock} for {@code /fencelock/orders}: their keys would overlap (a key of {@code
     * /fencelock/locks/x} is one of resource {@code x} of {@code /fencelock}), so such an
     * application must not start. Empty when there is no conflict. Needs read access to the prefix
     * {@code fencelock-namespaces/} and write access to this namespace's key in it.
     */
    public CompletableFuture<List<String>> registerNamespace() {
        return new NamespaceRegistry(this.calls, this.keys.namespace()).register();
    }

    /** Whether one namespace lies inside the other ({@code /a} and {@code /a/b}, not {@code /a} and {@code /ab}). */
    public static boolean isNested(String namespace, String other) {
        return NamespaceRegistry.isNested(namespace, other);
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
        Map<Long, SessionInfo> info = new TreeMap<>();
        this.sessions
                .live()
                .forEach((ttl, session) ->
                        info.put(ttl, new SessionInfo(session.leaseId, session.validFor(), session.locks.size())));
        return info;
    }

    /**
     * One session lease as seen locally.
     *
     * @param leaseId the etcd lease id
     * @param validFor how long its locks are valid without a further keep-alive
     * @param locks number of locks held on it
     */
    public record SessionInfo(long leaseId, Duration validFor, int locks) {}

    /** How many per-resource watches are open (one per resource with local waiters); for tests. */
    int openResourceWatches() {
        return this.watches.size();
    }

    /** Whether a seeded watch mirrors the queue of {@code resource} here; for tests. */
    boolean mirrorsQueueOf(String resource) {
        return this.watches.isMirrored(resourcePrefix(resource));
    }

    /** The key prefix of {@code resource}; for administration and tests. */
    public String resourcePrefix(String resource) {
        return this.keys.resourcePrefix(ResourceName.of(resource, Integer.MAX_VALUE));
    }

    @Override
    public CompletableFuture<BackendLock> acquire(AcquireCommand command) {
        if (this.calls.isClosed()) {
            return CompletableFuture.failedFuture(new IllegalStateException("EtcdLockBackend is closed"));
        }
        AcquireAttempt attempt =
                new AcquireAttempt(new AcquisitionOps(this.keys, command, this.instanceId), this.attempts);
        this.inFlight.add(attempt);
        attempt.result().whenComplete((lock, failure) -> this.inFlight.remove(attempt));
        attempt.start();
        return attempt.result();
    }

    @Override
    public CompletableFuture<Long> renew(BackendLock lock) {
        return this.renewals.renew((EtcdLock) lock);
    }

    @Override
    public CompletableFuture<Boolean> release(BackendLock lock) {
        return this.releases.release((EtcdLock) lock);
    }

    /** Releases without sending at once: the delete rides on a later Txn ({@link LockReleases#releaseDeferred}). */
    @Override
    public CompletableFuture<Boolean> releaseDeferred(BackendLock lock) {
        return this.releases.releaseDeferred((EtcdLock) lock);
    }

    @Override
    public CompletableFuture<BackendHealth> health(Duration timeout) {
        return this.administration.health(timeout);
    }

    /**
     * Checks once that etcd lets this client lock: that it accepts the connection (TLS, client
     * certificate) and the credentials, and that they may read and write every key under the
     * namespace. Writes nothing. Meant for startup, so a wrong password or a missing permission
     * stops an application at once instead of failing its first lock.
     *
     * @return {@code true} when the check passed, {@code false} when etcd did not answer within
     *     {@code timeout}: locking fails until etcd can be reached, which the caller reports (the
     *     Spring Boot starter logs it once at startup)
     * @throws LockStoreAccessDeniedException when etcd refused the credentials, the client
     *     certificate or the permissions
     * @throws LockBackendUnavailableException when the TLS handshake failed
     */
    public boolean verifyAccess(Duration timeout) {
        return this.administration.checkAccess(timeout);
    }

    @Override
    public CompletableFuture<Long> currentRevision() {
        return this.administration.currentRevision();
    }

    @Override
    public CompletableFuture<List<QueueEntry>> queue(ResourceName resource) {
        return this.administration.queue(resource);
    }

    @Override
    public CompletableFuture<Optional<QueueEntry>> forceRelease(ResourceName resource) {
        return this.administration.forceRelease(resource);
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
        for (AcquireAttempt attempt : new ArrayList<>(this.inFlight)) {
            attempt.fail(new LockException(
                    "Lock client closed while acquiring '" + attempt.command().resource() + "'"));
        }
        this.heldKeys.close();
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
