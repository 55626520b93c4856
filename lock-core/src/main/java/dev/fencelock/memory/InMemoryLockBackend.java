package dev.fencelock.memory;

import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockException;
import dev.fencelock.LockLostException;
import dev.fencelock.LockPermitsMismatchException;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendHealth;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockAdministration;
import dev.fencelock.spi.LockBackend;
import dev.fencelock.spi.QueueEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A backend inside one JVM with the same semantics as the etcd backend: one lease per TTL class
 * kept alive at a third of its TTL, per-acquisition keys, fencing token = the key's creation
 * revision, FIFO hand-over. For unit tests of applications; it protects nothing across
 * processes.
 *
 * <p>Several backends can share one {@link InMemoryLockStore} to play several application
 * instances; {@link #pauseRenewals()} plays one of them freezing (a GC pause), so tests can
 * watch its locks expire and move on.
 */
public final class InMemoryLockBackend implements LockBackend, LockAdministration {

    private final InMemoryLockStore store;

    private final boolean ownsStore;

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "fencelock-memory-session");
        thread.setDaemon(true);
        return thread;
    });

    private final Map<Long, Session> sessions = new ConcurrentHashMap<>();

    private final Map<InMemoryLockStore.Key, MemoryLock> held = new ConcurrentHashMap<>();

    private volatile boolean renewalsPaused;

    /** A backend with a store of its own. */
    public InMemoryLockBackend() {
        this(new InMemoryLockStore(), true);
    }

    private InMemoryLockBackend(InMemoryLockStore store, boolean ownsStore) {
        this.store = store;
        this.ownsStore = ownsStore;
    }

    /** A backend that locks against {@code store}, shared with other backends. */
    public static InMemoryLockBackend sharing(InMemoryLockStore store) {
        return new InMemoryLockBackend(store, false);
    }

    /** The store this backend locks against. */
    public InMemoryLockStore store() {
        return this.store;
    }

    /** Stops sending keep-alives, as if this process froze; its locks expire after their TTL. */
    public void pauseRenewals() {
        this.renewalsPaused = true;
    }

    /** Sends keep-alives again; locks that expired meanwhile stay lost. */
    public void resumeRenewals() {
        this.renewalsPaused = false;
    }

    @Override
    public CompletableFuture<BackendLock> acquire(AcquireCommand command) {
        Session session = session(command.ttlSeconds());
        String resource = command.resource().value();
        InMemoryLockStore.Key key =
                this.store.putIfAbsent(resource, command.requestId(), session.leaseId, command.kind());
        if (key == null) {
            this.sessions.remove(command.ttlSeconds(), session);
            session = session(command.ttlSeconds());
            key = this.store.putIfAbsent(resource, command.requestId(), session.leaseId, command.kind());
        }
        if (key == null || key.leaseId != session.leaseId || !key.kind.equals(command.kind())) {
            return CompletableFuture.failedFuture(new LockException("Request id '" + command.requestId() + "' of lock '"
                    + resource + "' is in use by another session or as another kind of lock; use a new request id"));
        }
        MemoryLock existing = this.held.get(key);
        if (existing != null && !existing.isReleased()) {
            return CompletableFuture.completedFuture(existing);
        }
        InMemoryLockStore.Key mine = key;
        Session owner = session;
        CompletableFuture<Void> first = this.store.awaitHolding(mine);
        if (!first.isDone() && !command.waitForRelease()) {
            this.store.delete(mine);
            return CompletableFuture.failedFuture(
                    new LockAcquisitionTimeoutException("Lock '" + resource + "' is held by someone else"));
        }
        CompletableFuture<BackendLock> result = new CompletableFuture<>();
        first.whenComplete((ignored, failure) -> {
            if (failure instanceof LockPermitsMismatchException mismatch) {
                result.completeExceptionally(mismatch);
                return;
            }
            if (failure != null) {
                result.completeExceptionally(new LockBackendUnavailableException(
                        "Session of lock '" + resource + "' expired while waiting", failure));
                return;
            }
            MemoryLock lock = this.held.computeIfAbsent(mine, k -> new MemoryLock(k, owner, command.resource()));
            owner.locks.add(lock);
            this.store.onDeleted(mine, reason -> lostOrReleased(lock, reason));
            if (!this.store.exists(mine)) {
                lock.markLost(new LockLostException("Lock '" + resource + "' was deleted before it was granted"));
            }
            if (!result.complete(lock)) {
                release(lock);
            }
        });
        ScheduledFuture<?> timeout = this.scheduler.schedule(
                () -> result.completeExceptionally(new LockAcquisitionTimeoutException(
                        "Lock '" + resource + "' stayed busy for the whole wait timeout")),
                command.remainingNanos(),
                TimeUnit.NANOSECONDS);
        result.whenComplete((lock, failure) -> {
            timeout.cancel(false);
            if (failure != null) {
                this.store.delete(mine);
            }
        });
        return result;
    }

    private void lostOrReleased(MemoryLock lock, String reason) {
        this.held.remove(lock.key, lock);
        lock.session.locks.remove(lock);
        lock.markLost(new LockLostException(
                "Lock '" + lock.resource() + "' (token " + lock.fencingToken() + ") was lost: " + reason));
    }

    @Override
    public CompletableFuture<Long> renew(BackendLock lock) {
        MemoryLock memoryLock = (MemoryLock) lock;
        long sent = System.nanoTime();
        if (!this.store.exists(memoryLock.key) || !this.store.keepAlive(memoryLock.session.leaseId)) {
            LockLostException lost =
                    new LockLostException("Lock '" + lock.resource() + "' (token " + lock.fencingToken() + ") is gone");
            lock.markLost(lost);
            return CompletableFuture.failedFuture(lost);
        }
        memoryLock.session.extend(sent);
        return CompletableFuture.completedFuture(memoryLock.session.validUntilNanos);
    }

    @Override
    public CompletableFuture<Boolean> release(BackendLock lock) {
        MemoryLock memoryLock = (MemoryLock) lock;
        memoryLock.markReleased();
        this.held.remove(memoryLock.key, memoryLock);
        memoryLock.session.locks.remove(memoryLock);
        return CompletableFuture.completedFuture(this.store.delete(memoryLock.key));
    }

    @Override
    public String instanceId() {
        return LockAdministration.defaultInstanceId();
    }

    @Override
    public CompletableFuture<BackendHealth> health(Duration timeout) {
        return CompletableFuture.completedFuture(
                new BackendHealth(true, Map.of("backend", "in-memory", "heldLocks", this.held.size())));
    }

    @Override
    public CompletableFuture<Long> currentRevision() {
        return CompletableFuture.completedFuture(this.store.currentRevision());
    }

    @Override
    public CompletableFuture<List<QueueEntry>> queue(ResourceName resource) {
        List<QueueEntry> entries = new ArrayList<>();
        for (InMemoryLockStore.Key key : this.store.entriesOf(resource.value())) {
            entries.add(new QueueEntry(key.requestId, key.leaseId, key.createRevision, "in-memory", key.kind));
        }
        return CompletableFuture.completedFuture(entries);
    }

    @Override
    public CompletableFuture<Optional<QueueEntry>> forceRelease(ResourceName resource) {
        for (InMemoryLockStore.Key key : this.store.entriesOf(resource.value())) {
            // The store tells the holder's backend through its deletion callback.
            if (this.store.forceDelete(key)) {
                return CompletableFuture.completedFuture(Optional.of(
                        new QueueEntry(key.requestId, key.leaseId, key.createRevision, "in-memory", key.kind)));
            }
            break;
        }
        return CompletableFuture.completedFuture(Optional.empty());
    }

    @Override
    public String describe() {
        return "in-memory";
    }

    @Override
    public void close() {
        for (Session session : new ArrayList<>(this.sessions.values())) {
            session.keepAlive.cancel(false);
            session.locks.forEach(MemoryLock::markReleased);
            this.store.revoke(session.leaseId);
        }
        this.sessions.clear();
        this.held.clear();
        this.scheduler.shutdownNow();
        if (this.ownsStore) {
            this.store.close();
        }
    }

    private Session session(long ttlSeconds) {
        return this.sessions.computeIfAbsent(ttlSeconds, ttl -> {
            long sent = System.nanoTime();
            long leaseId = this.store.grant(ttl);
            Session session = new Session(leaseId, TimeUnit.SECONDS.toNanos(ttl), sent);
            long period = Math.max(1, session.ttlNanos / 3);
            session.keepAlive =
                    this.scheduler.scheduleAtFixedRate(() -> keepAlive(session), period, period, TimeUnit.NANOSECONDS);
            return session;
        });
    }

    private void keepAlive(Session session) {
        if (this.renewalsPaused) {
            return;
        }
        long sent = System.nanoTime();
        if (this.store.keepAlive(session.leaseId)) {
            session.extend(sent);
        } else {
            session.keepAlive.cancel(false);
            this.sessions.remove(session.ttlNanos / 1_000_000_000L, session);
            for (MemoryLock lock : new ArrayList<>(session.locks)) {
                lostOrReleased(lock, "its session lease expired");
            }
        }
    }

    private static final class Session {

        final long leaseId;

        final long ttlNanos;

        volatile long validUntilNanos;

        final Set<MemoryLock> locks = ConcurrentHashMap.newKeySet();

        volatile ScheduledFuture<?> keepAlive;

        Session(long leaseId, long ttlNanos, long sentNanos) {
            this.leaseId = leaseId;
            this.ttlNanos = ttlNanos;
            this.validUntilNanos = sentNanos + ttlNanos;
        }

        synchronized void extend(long sentNanos) {
            if (sentNanos + this.ttlNanos - this.validUntilNanos > 0) {
                this.validUntilNanos = sentNanos + this.ttlNanos;
            }
        }
    }

    private static final class MemoryLock extends BackendLock {

        final InMemoryLockStore.Key key;

        final Session session;

        MemoryLock(InMemoryLockStore.Key key, Session session, ResourceName resource) {
            super(resource, key.requestId, key.leaseId, key.createRevision, key.kind);
            this.key = key;
            this.session = session;
        }

        @Override
        public long validUntilNanos() {
            return this.session.validUntilNanos;
        }
    }
}
