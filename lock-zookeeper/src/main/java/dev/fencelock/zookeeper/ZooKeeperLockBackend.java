package dev.fencelock.zookeeper;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockException;
import dev.fencelock.LockLostException;
import dev.fencelock.LockStoreAccessDeniedException;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendEventListener;
import dev.fencelock.spi.BackendHealth;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockAdministration;
import dev.fencelock.spi.LockBackend;
import dev.fencelock.spi.QueueEntry;
import dev.fencelock.spi.WriteOperation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.jspecify.annotations.Nullable;

/**
 * Locks on a ZooKeeper ensemble, through the plain ZooKeeper client.
 *
 * <ul>
 *   <li><b>Queue.</b> Each acquisition creates an ephemeral sequential node below its resource's
 *       node ({@link ZooKeeperPaths}); the sequence numbers order the queue, and {@link
 *       dev.fencelock.spi.QueueWalk} decides who holds, as for every backend. A waiter watches only
 *       the node it waits for (the one ahead for an exclusive lock, the nearest exclusive one ahead
 *       for a shared lock), so a release wakes one waiter, not all; a semaphore's waiter watches the
 *       resource's children, since any holder's release may admit it.
 *   <li><b>Lease.</b> One session per lease TTL, its timeout the TTL ({@link ZooKeeperSession}): a
 *       holder that dies or freezes loses its session, and the ensemble deletes its nodes with it.
 *   <li><b>Fencing token.</b> The node's creation zxid. Zxids order every write of the ensemble,
 *       across leader changes (a new leader starts a new epoch in the zxid's high 32 bits), so a node
 *       created later has a larger one. A holder's node was created after the node of every earlier
 *       holder of its resource, since it queued behind them: every new holder has a larger token.
 *   <li><b>Idempotent acquisition.</b> The node's name carries the request id. When the connection
 *       goes before a create is answered, the acquisition syncs (so the server it now talks to has
 *       every committed write) and looks for its node by name and session before creating again.
 *   <li><b>Guarded release.</b> A release deletes its own node by its full name, which no other
 *       acquisition ever has: it can never delete a newer holder's node.
 * </ul>
 */
public final class ZooKeeperLockBackend implements LockBackend, LockAdministration {

    private static final AtomicInteger THREADS = new AtomicInteger();

    private final String connectString;

    private final ZooKeeperPaths paths;

    private final @Nullable String digestAuth;

    private final @Nullable ZooKeeperTls tls;

    private final List<ACL> acl;

    private final long administrationTtlSeconds;

    private final String instanceId;

    private final BackendEventListener events;

    private final ScheduledExecutorService scheduler;

    private final ExecutorService callbacks;

    private final Map<Long, ZooKeeperSession> sessions = new ConcurrentHashMap<>();

    private final Map<String, ZooKeeperLock> held = new ConcurrentHashMap<>();

    /** Acquisitions still waiting, by resource and request id. */
    private final Map<String, ZooKeeperAcquisition> waiting = new ConcurrentHashMap<>();

    private volatile @Nullable CompletableFuture<Void> namespaceReady;

    private volatile boolean renewalsPaused;

    private volatile boolean closed;

    ZooKeeperLockBackend(ZooKeeperLockBackendBuilder builder) {
        this.connectString = builder.connectString();
        this.paths = new ZooKeeperPaths(builder.namespace());
        this.digestAuth = builder.digestAuth();
        this.tls = builder.tls();
        this.acl = (this.digestAuth != null) ? ZooDefs.Ids.CREATOR_ALL_ACL : ZooDefs.Ids.OPEN_ACL_UNSAFE;
        this.administrationTtlSeconds = builder.administrationTtlSeconds();
        this.instanceId = builder.instanceId();
        this.events = builder.events();
        this.scheduler = Executors.newSingleThreadScheduledExecutor(daemon("fencelock-zookeeper-timer-"));
        this.callbacks = Executors.newCachedThreadPool(daemon("fencelock-zookeeper-"));
    }

    /** A builder; {@link ZooKeeperLockBackendBuilder#connectString} is required. */
    public static ZooKeeperLockBackendBuilder builder() {
        return new ZooKeeperLockBackendBuilder();
    }

    @Override
    public CompletableFuture<BackendLock> acquire(AcquireCommand command) {
        ZooKeeperLock existing = this.held.get(heldKey(command.resource().value(), command.requestId()));
        if (existing != null && !existing.isReleased() && existing.kind().equals(command.kind())) {
            return CompletableFuture.completedFuture(existing);
        }
        return ZooKeeperAcquisition.startOrJoin(
                this, command, this.waiting, heldKey(command.resource().value(), command.requestId()));
    }

    @Override
    public CompletableFuture<Long> renew(BackendLock lock) {
        ZooKeeperLock zkLock = (ZooKeeperLock) lock;
        LockLostException lost = zkLock.lostCause();
        if (lost != null) {
            return CompletableFuture.failedFuture(lost);
        }
        long sent = System.nanoTime();
        ZooKeeperCalls calls = zkLock.session.calls;
        return calls.sync(this.paths.namespace())
                .thenCompose(synced -> calls.exists(zkLock.path, null))
                .handle((stat, failure) -> {
                    if (failure != null) {
                        throw failure("Could not renew lock '" + lock.resource().value() + "'", failure);
                    }
                    if (stat == null || stat.getEphemeralOwner() != zkLock.session.sessionId()) {
                        LockLostException gone = ZooKeeperSession.lostException(
                                zkLock, "its node is gone (force-released, or its session expired)");
                        zkLock.markLost(gone);
                        forget(zkLock);
                        throw gone;
                    }
                    zkLock.session.confirmed(sent);
                    LockLostException lapsed = zkLock.lostCause();
                    if (lapsed != null) {
                        throw lapsed; // the answer came after the lock's local deadline
                    }
                    return zkLock.validUntilNanos();
                });
    }

    @Override
    public CompletableFuture<Boolean> release(BackendLock lock) {
        ZooKeeperLock zkLock = (ZooKeeperLock) lock;
        zkLock.markReleased();
        forget(zkLock);
        return deleteNode(zkLock.session, zkLock.path, WriteOperation.RELEASE);
    }

    @Override
    public String describe() {
        return "zookeeper://" + this.connectString + this.paths.namespace();
    }

    /** Stops sending heartbeats, as if this process froze; its locks are lost at their local deadline. For tests. */
    public void pauseRenewals() {
        this.renewalsPaused = true;
    }

    /** Sends heartbeats again; locks that were lost meanwhile stay lost. */
    public void resumeRenewals() {
        this.renewalsPaused = false;
    }

    /**
     * The live lock sessions of this backend and until when ({@link System#nanoTime()}) each keeps
     * its locks valid: session id (what {@link dev.fencelock.LockLease#leaseId()} reports) to its
     * local deadline. A session that ended, or has not connected yet, is not listed. For tests and
     * operators.
     */
    public Map<Long, Long> sessionDeadlines() {
        Map<Long, Long> deadlines = new HashMap<>();
        for (ZooKeeperSession session : this.sessions.values()) {
            if (session.connected.isDone() && !session.connected.isCompletedExceptionally() && !session.isEnded()) {
                deadlines.put(session.sessionId(), session.validUntilNanos());
            }
        }
        return deadlines;
    }

    /** The node of {@code resource}, for tests and operators. */
    public String resourcePath(String resource) {
        return this.paths.resource(resource);
    }

    // --- administration -----------------------------------------------------------------------

    @Override
    public String instanceId() {
        return this.instanceId;
    }

    @Override
    public CompletableFuture<BackendHealth> health(Duration timeout) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("backend", "zookeeper");
        details.put("connectString", this.connectString);
        details.put("namespace", this.paths.namespace());
        details.put("tls", this.tls != null);
        details.put("fencingTokens", true);
        details.put("sessions", this.sessions.size());
        details.put("heldLocks", this.held.size());
        long deadline = System.nanoTime() + timeout.toNanos();
        return session(this.administrationTtlSeconds, deadline)
                .thenCompose(
                        session -> session.calls.sync(this.paths.namespace()).thenApply(synced -> session))
                .orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
                .handle((session, failure) -> {
                    if (failure != null) {
                        details.put("error", String.valueOf(unwrap(failure)));
                        return new BackendHealth(false, details);
                    }
                    details.put("sessionId", "0x" + Long.toHexString(session.sessionId()));
                    return new BackendHealth(true, details);
                });
    }

    @Override
    public CompletableFuture<List<QueueEntry>> queue(ResourceName resource) {
        String parent = this.paths.resource(resource.value());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(this.administrationTtlSeconds);
        return session(this.administrationTtlSeconds, deadline)
                .thenCompose(session -> ZooKeeperQueueReads.read(this, session, parent, deadline))
                .thenApply(nodes ->
                        nodes.stream().map(ZooKeeperQueueReads.Node::entry).toList())
                .exceptionallyCompose(ex ->
                        CompletableFuture.failedFuture(failure("Could not read lock '" + resource.value() + "'", ex)));
    }

    @Override
    public CompletableFuture<Optional<QueueEntry>> forceRelease(ResourceName resource) {
        String parent = this.paths.resource(resource.value());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(this.administrationTtlSeconds);
        return session(this.administrationTtlSeconds, deadline)
                .thenCompose(session -> ZooKeeperQueueReads.read(this, session, parent, deadline)
                        .thenCompose(nodes -> {
                            if (nodes.isEmpty()) {
                                return CompletableFuture.completedFuture(Optional.<QueueEntry>empty());
                            }
                            ZooKeeperQueueReads.Node oldest = nodes.get(0);
                            return deleteNode(session, oldest.path(), WriteOperation.RELEASE)
                                    .thenApply(deleted ->
                                            deleted ? Optional.of(oldest.entry()) : Optional.<QueueEntry>empty());
                        }))
                .exceptionallyCompose(ex -> CompletableFuture.failedFuture(
                        failure("Could not force-release lock '" + resource.value() + "'", ex)));
    }

    // --- what acquisitions and sessions share ------------------------------------------------

    /** The live session for {@code ttlSeconds}, opening one (and the namespace's nodes) when there is none. */
    CompletableFuture<ZooKeeperSession> session(long ttlSeconds, long deadlineNanos) {
        if (this.closed) {
            return CompletableFuture.failedFuture(new LockBackendUnavailableException(describe() + " is closed"));
        }
        CompletableFuture<ZooKeeperSession> future;
        try {
            future = this.sessions.computeIfAbsent(ttlSeconds, ttl -> new ZooKeeperSession(this, ttl)).connected;
        } catch (LockException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        long remaining = Math.max(0, deadlineNanos - System.nanoTime());
        return future.thenCompose(session -> namespace(session).thenApply(ready -> session))
                .orTimeout(remaining, TimeUnit.NANOSECONDS)
                .exceptionallyCompose(ex -> CompletableFuture.failedFuture(
                        failure("Could not open a session with a " + ttlSeconds + " s timeout", ex)));
    }

    /** Creates the namespace's nodes once per backend (again after a failure). */
    private CompletableFuture<Void> namespace(ZooKeeperSession session) {
        CompletableFuture<Void> ready = this.namespaceReady;
        if (ready != null && !ready.isCompletedExceptionally()) {
            return ready;
        }
        CompletableFuture<Void> created = CompletableFuture.completedFuture(null);
        String path = "";
        for (String part : this.paths.locks().substring(1).split("/")) {
            path = path + "/" + part;
            String node = path;
            created = created.thenCompose(done -> createIfMissing(session, node, CreateMode.PERSISTENT));
        }
        this.namespaceReady = created;
        return created;
    }

    /** Creates {@code path} with no data unless it exists. */
    CompletableFuture<Void> createIfMissing(ZooKeeperSession session, String path, CreateMode mode) {
        return session.calls
                .create(path, new byte[0], this.acl, mode)
                .<Void>thenApply(created -> null)
                .exceptionallyCompose(ex -> (ZooKeeperCalls.code(ex) == Code.NODEEXISTS)
                        ? CompletableFuture.completedFuture(null)
                        : CompletableFuture.failedFuture(ex));
    }

    /**
     * Deletes a node of {@code session}; completes with whether it was there. A delete whose outcome
     * is unknown is sent again while the session lives, since its nodes would otherwise stay until it
     * ends.
     */
    CompletableFuture<Boolean> deleteNode(ZooKeeperSession session, String path, WriteOperation operation) {
        long sent = System.nanoTime();
        return session.calls.delete(path).handle((deleted, failure) -> {
            if (failure == null) {
                this.events.committed(operation, Duration.ofNanos(System.nanoTime() - sent));
                return deleted;
            }
            if (!session.isEnded() && !this.closed) {
                this.scheduler.schedule(
                        () -> deleteNode(session, path, operation),
                        Math.max(100, TimeUnit.SECONDS.toMillis(session.ttlSeconds) / 4),
                        TimeUnit.MILLISECONDS);
            }
            throw failure("Could not delete " + path, failure);
        });
    }

    List<ACL> acl() {
        return this.acl;
    }

    ZooKeeperPaths paths() {
        return this.paths;
    }

    String connectString() {
        return this.connectString;
    }

    @Nullable
    String digestAuth() {
        return this.digestAuth;
    }

    @Nullable
    ZooKeeperTls tls() {
        return this.tls;
    }

    String instanceIdForRecords() {
        return this.instanceId;
    }

    BackendEventListener events() {
        return this.events;
    }

    ScheduledExecutorService scheduler() {
        return this.scheduler;
    }

    /** {@code next}, started 100 ms from now: a call to try again after one that had no answer. */
    <T> CompletableFuture<T> retryLater(Supplier<CompletableFuture<T>> next) {
        CompletableFuture<T> later = new CompletableFuture<>();
        this.scheduler.schedule(
                () -> next.get().whenComplete((value, failure) -> {
                    if (failure != null) {
                        later.completeExceptionally(failure);
                    } else {
                        later.complete(value);
                    }
                }),
                100,
                TimeUnit.MILLISECONDS);
        return later;
    }

    ExecutorService callbacks() {
        return this.callbacks;
    }

    boolean renewalsPaused() {
        return this.renewalsPaused;
    }

    /** Records a lock as held and watches its node; false when the backend or the session ended meanwhile. */
    boolean granted(ZooKeeperLock lock) {
        if (this.closed || !lock.session.add(lock)) {
            return false;
        }
        this.held.put(heldKey(lock.resource().value(), lock.requestId()), lock);
        Watcher gone = event -> {
            if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                if (lock.markLost(ZooKeeperSession.lostException(
                        lock, "its node was deleted (force-released, or its session expired)"))) {
                    forget(lock);
                }
            }
        };
        watchHeld(lock, gone);
        return true;
    }

    /**
     * Watches a held lock's node. ZooKeeper sets a watch only with its answer: when the answer is
     * lost with the connection, so is the watch, and a force-release would go unnoticed. So it is
     * set again until it holds, the lock ends, or its session does (its node goes with it).
     */
    private void watchHeld(ZooKeeperLock lock, Watcher gone) {
        lock.session.calls.exists(lock.path, gone).whenComplete((stat, failure) -> {
            if (failure != null) {
                if (!this.closed && !lock.session.isEnded() && !lock.isReleased() && !lock.isLost()) {
                    this.scheduler.schedule(() -> watchHeld(lock, gone), 100, TimeUnit.MILLISECONDS);
                }
            } else if (stat == null
                    && lock.markLost(ZooKeeperSession.lostException(lock, "its node was gone once it was granted"))) {
                forget(lock);
            }
        });
    }

    void forget(ZooKeeperLock lock) {
        lock.session.remove(lock);
        this.held.remove(heldKey(lock.resource().value(), lock.requestId()), lock);
    }

    /** A session ended: the next lock with its TTL opens a new one. */
    void forget(ZooKeeperSession session) {
        this.sessions.remove(session.ttlSeconds, session);
    }

    LockException failure(String what, Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof LockException lockException) {
            return lockException;
        }
        Code code = ZooKeeperCalls.code(cause);
        if (code == Code.NOAUTH || code == Code.AUTHFAILED) {
            return new LockStoreAccessDeniedException(
                    what + ": " + describe() + " refused this session's identity (" + code
                            + "); check the digest user and password and the nodes' ACLs",
                    cause);
        }
        return new LockBackendUnavailableException(what + ": " + describe() + " did not answer (" + cause + ")", cause);
    }

    static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof java.util.concurrent.CompletionException
                        || cause instanceof java.util.concurrent.ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    private static String heldKey(String resource, String requestId) {
        return resource + '\u0000' + requestId;
    }

    /** Gives up every lock (their sessions close, and the ensemble deletes their nodes) and stops. */
    @Override
    public void close() {
        this.closed = true;
        // An acquisition between two tries waits on the scheduler, which stops below: ended here, none is left
        // hanging, whatever it was doing.
        LockBackendUnavailableException closing = new LockBackendUnavailableException(describe() + " is closed");
        for (ZooKeeperAcquisition attempt : new ArrayList<>(this.waiting.values())) {
            attempt.end(closing);
        }
        for (ZooKeeperLock lock : new ArrayList<>(this.held.values())) {
            lock.markReleased();
            forget(lock);
        }
        for (ZooKeeperSession session : new ArrayList<>(this.sessions.values())) {
            session.end(null, false);
        }
        this.sessions.clear();
        this.scheduler.shutdownNow();
        this.callbacks.shutdown();
        try {
            this.callbacks.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(String prefix) {
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
