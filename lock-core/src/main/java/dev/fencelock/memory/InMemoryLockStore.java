package dev.fencelock.memory;

import dev.fencelock.LockPermitsMismatchException;
import dev.fencelock.spi.LockKind;
import dev.fencelock.spi.QueueWalk;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The shared state several {@link InMemoryLockBackend}s lock against, standing in for an etcd
 * cluster inside one JVM: a global revision, leases with TTLs that expire when not kept alive,
 * and per-resource keys ordered by creation revision. Give one store to several backends to
 * simulate several application instances.
 */
public final class InMemoryLockStore implements AutoCloseable {

    private final ScheduledExecutorService expiry = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "fencelock-memory-expiry");
        thread.setDaemon(true);
        return thread;
    });

    private long revision = 1;

    private long nextLeaseId = 7_000;

    private final Map<String, TreeMap<Long, Key>> resources = new HashMap<>();

    private final Map<String, Key> keys = new HashMap<>();

    private final Map<Long, Lease> leases = new HashMap<>();

    /** The revision of the last change: every token issued so far is at most this. */
    synchronized long currentRevision() {
        return this.revision;
    }

    /** A key as stored: one acquisition (held or waiting) of a resource. */
    static final class Key {

        final String resource;

        final String requestId;

        final long leaseId;

        final long createRevision;

        final LockKind kind;

        /** Completes once the key holds; set while it waits. */
        @Nullable
        CompletableFuture<Void> waiting;

        @Nullable
        Consumer<String> onDeleted;

        Key(String resource, String requestId, long leaseId, long createRevision, LockKind kind) {
            this.resource = resource;
            this.requestId = requestId;
            this.leaseId = leaseId;
            this.createRevision = createRevision;
            this.kind = kind;
        }
    }

    private static final class Lease {

        final long ttlNanos;

        long expiresAtNanos;

        final Set<Key> keys = new HashSet<>();

        Lease(long ttlNanos) {
            this.ttlNanos = ttlNanos;
            this.expiresAtNanos = System.nanoTime() + ttlNanos;
        }
    }

    /** Grants a lease of {@code ttlSeconds}; it expires unless {@link #keepAlive(long)} is called in time. */
    synchronized long grant(long ttlSeconds) {
        long id = this.nextLeaseId++;
        Lease lease = new Lease(TimeUnit.SECONDS.toNanos(ttlSeconds));
        this.leases.put(id, lease);
        scheduleExpiry(id, lease.ttlNanos);
        return id;
    }

    /** Extends a lease from now; returns {@code false} if it has already expired or was revoked. */
    synchronized boolean keepAlive(long leaseId) {
        Lease lease = this.leases.get(leaseId);
        if (lease == null) {
            return false;
        }
        lease.expiresAtNanos = System.nanoTime() + lease.ttlNanos;
        return true;
    }

    /** Deletes a lease and every key attached to it. */
    void revoke(long leaseId) {
        List<Runnable> effects = new ArrayList<>();
        synchronized (this) {
            revokeLocked(leaseId, effects);
        }
        effects.forEach(Runnable::run);
    }

    private void revokeLocked(long leaseId, List<Runnable> effects) {
        Lease lease = this.leases.remove(leaseId);
        if (lease != null) {
            for (Key key : new ArrayList<>(lease.keys)) {
                deleteLocked(key, "its lease " + leaseId + " expired or was revoked", effects);
            }
        }
    }

    /**
     * The one-step acquire: creates the key of {@code requestId} on {@code leaseId} unless it
     * exists, and returns it (new or existing), or {@code null} if the lease is gone.
     */
    synchronized @Nullable Key putIfAbsent(String resource, String requestId, long leaseId, LockKind kind) {
        Key existing = this.keys.get(id(resource, requestId));
        if (existing != null) {
            return existing;
        }
        Lease lease = this.leases.get(leaseId);
        if (lease == null) {
            return null;
        }
        Key key = new Key(resource, requestId, leaseId, ++this.revision, kind);
        this.keys.put(id(resource, requestId), key);
        this.resources.computeIfAbsent(resource, r -> new TreeMap<>()).put(key.createRevision, key);
        lease.keys.add(key);
        return key;
    }

    /**
     * Completes when {@code key} holds its resource by the {@link QueueWalk} rule (at once if it
     * does); fails if the key is deleted first, or with {@link LockPermitsMismatchException} if a
     * key of another number of permits is ahead of it.
     */
    synchronized CompletableFuture<Void> awaitHolding(Key key) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        TreeMap<Long, Key> queue = this.resources.get(key.resource);
        QueueWalk walk = new QueueWalk();
        if (queue != null) {
            for (Key ahead : queue.headMap(key.createRevision).values()) {
                walk.next(ahead.kind);
            }
        }
        switch (walk.standingOf(key.kind)) {
            case HOLDS -> future.complete(null);
            case WAITS -> {
                // A retry with the same request id waits for the same key: both are told at once.
                if (key.waiting != null) {
                    return key.waiting;
                }
                key.waiting = future;
            }
            case CONFLICTS ->
                future.completeExceptionally(new LockPermitsMismatchException(QueueWalk.conflictMessage(
                        key.resource, key.kind, Objects.requireNonNull(walk.conflictingAhead(key.kind)))));
        }
        return future;
    }

    /** Whether {@code key} still exists with its creation revision. */
    synchronized boolean exists(Key key) {
        return this.keys.get(id(key.resource, key.requestId)) == key;
    }

    /** Registers what to do when {@code key} is deleted for any reason other than {@link #delete}. */
    synchronized void onDeleted(Key key, Consumer<String> callback) {
        key.onDeleted = callback;
    }

    /** Deletes {@code key} as an operator would, telling its holder; returns whether it existed. */
    boolean forceDelete(Key key) {
        List<Runnable> effects = new ArrayList<>();
        boolean deleted;
        synchronized (this) {
            deleted = deleteLocked(key, "force-released by an operator", effects);
        }
        effects.forEach(Runnable::run);
        return deleted;
    }

    /** Deletes {@code key} if it still exists; returns whether it did. */
    boolean delete(Key key) {
        List<Runnable> effects = new ArrayList<>();
        boolean deleted;
        synchronized (this) {
            key.onDeleted = null;
            deleted = deleteLocked(key, "released", effects);
        }
        effects.forEach(Runnable::run);
        return deleted;
    }

    /** The keys of {@code resource}, oldest first, as {@code requestId} strings; for tests and diagnostics. */
    public synchronized List<String> keysOf(String resource) {
        TreeMap<Long, Key> queue = this.resources.get(resource);
        List<String> ids = new ArrayList<>();
        if (queue != null) {
            queue.values().forEach(key -> ids.add(key.requestId));
        }
        return ids;
    }

    /** The keys of {@code resource}, oldest (the holder) first. */
    synchronized List<Key> entriesOf(String resource) {
        TreeMap<Long, Key> queue = this.resources.get(resource);
        return (queue != null) ? new ArrayList<>(queue.values()) : List.of();
    }

    /** Number of keys in the store, for tests. */
    public synchronized int keyCount() {
        return this.keys.size();
    }

    private boolean deleteLocked(Key key, String reason, List<Runnable> effects) {
        if (this.keys.get(id(key.resource, key.requestId)) != key) {
            return false;
        }
        this.keys.remove(id(key.resource, key.requestId));
        this.revision++;
        Lease lease = this.leases.get(key.leaseId);
        if (lease != null) {
            lease.keys.remove(key);
        }
        TreeMap<Long, Key> queue = this.resources.get(key.resource);
        queue.remove(key.createRevision);
        if (queue.isEmpty()) {
            this.resources.remove(key.resource);
        } else {
            // Wake exactly the waiters this deletion lets hold, as etcd's queue mirror does.
            QueueWalk walk = new QueueWalk();
            for (Key next : queue.values()) {
                QueueWalk.Standing standing = walk.next(next.kind);
                CompletableFuture<Void> waiter = next.waiting;
                if (standing == QueueWalk.Standing.HOLDS && waiter != null) {
                    next.waiting = null;
                    effects.add(() -> waiter.complete(null));
                }
            }
        }
        Consumer<String> callback = key.onDeleted;
        if (callback != null) {
            key.onDeleted = null;
            effects.add(() -> callback.accept(reason));
        }
        CompletableFuture<Void> waiting = key.waiting;
        if (waiting != null) {
            key.waiting = null;
            effects.add(() -> waiting.completeExceptionally(new IllegalStateException("key deleted: " + reason)));
        }
        return true;
    }

    private void scheduleExpiry(long leaseId, long delayNanos) {
        this.expiry.schedule(() -> checkExpiry(leaseId), delayNanos, TimeUnit.NANOSECONDS);
    }

    private void checkExpiry(long leaseId) {
        List<Runnable> effects = new ArrayList<>();
        synchronized (this) {
            Lease lease = this.leases.get(leaseId);
            if (lease == null) {
                return;
            }
            long remaining = lease.expiresAtNanos - System.nanoTime();
            if (remaining > 0) {
                scheduleExpiry(leaseId, remaining);
                return;
            }
            revokeLocked(leaseId, effects);
        }
        effects.forEach(Runnable::run);
    }

    private static String id(String resource, String requestId) {
        return resource + '\u0000' + requestId;
    }

    @Override
    public void close() {
        this.expiry.shutdownNow();
    }
}
