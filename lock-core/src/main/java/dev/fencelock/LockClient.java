package dev.fencelock;

import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockAdministration;
import dev.fencelock.spi.LockBackend;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acquires distributed locks from a {@link LockBackend} (etcd in production, in-memory in unit
 * tests).
 *
 * <p>The client owns everything that does not depend on the store: it validates resource names,
 * bounds lease TTLs and wait timeouts, limits how many of its callers queue for one resource,
 * counts re-entrant holds (acquiring again with the same request id returns a new hold on the
 * same lock and token, without a store call), and reports events to a {@link
 * LockEventListener}.
 *
 * <pre>{@code
 * try (LockLease lease = client.acquire(LockRequest.of("order:42"))) {
 *     repository.save(order, lease.fencingToken());
 * }
 * }</pre>
 */
public final class LockClient implements AutoCloseable {

    private static final Logger logger = LoggerFactory.getLogger(LockClient.class);

    /** How long a blocking call waits past its own deadline for a backend that fails to answer. */
    private static final Duration BACKEND_GRACE = Duration.ofSeconds(10);

    private final LockBackend backend;

    private final Settings settings;

    private final LockEventListener events;

    private final Executor callbackExecutor;

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<ResourceName, AtomicInteger> attempts = new ConcurrentHashMap<>();

    private final AtomicInteger waiting = new AtomicInteger();

    private final AtomicBoolean closed = new AtomicBoolean();

    private LockClient(Builder builder) {
        this.backend = builder.backend;
        this.settings = new Settings(builder);
        this.events = switch (builder.listeners.size()) {
            case 0 -> LockEventListener.NONE;
            case 1 -> builder.listeners.get(0);
            default -> LockEventListener.composite(builder.listeners);
        };
        this.callbackExecutor = builder.callbackExecutor;
    }

    /** Starts building a client over {@code backend}; the client closes the backend when it closes. */
    public static Builder builder(LockBackend backend) {
        return new Builder(backend);
    }

    /**
     * Acquires a lock, waiting up to the request's wait timeout for the current holder.
     *
     * @throws LockAcquisitionTimeoutException when the lock stayed busy
     * @throws LockBackendUnavailableException when the store could not be reached in time
     * @throws LockQueueFullException when too many callers of this client wait for the resource
     * @throws InvalidLockKeyException when the resource name is not valid
     */
    public LockLease acquire(LockRequest request) {
        return await(prepare(request, true));
    }

    /**
     * Blocks for an attempt; a caller that stops waiting (interrupt, a backend that never answers)
     * cancels it, so a lock granted afterwards is handed straight back instead of leaking.
     */
    private LockLease await(Attempt attempt) {
        CompletableFuture<LockLease> future = acquireAsync(attempt);
        long waitNanos = attempt.command.remainingNanos() + BACKEND_GRACE.toNanos();
        try {
            return future.get(waitNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException ex) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new LockException("Interrupted while waiting for lock '" + attempt.command.resource() + "'", ex);
        } catch (TimeoutException ex) {
            future.cancel(true);
            throw new LockBackendUnavailableException("Lock backend " + this.backend.describe()
                    + " did not answer for lock '" + attempt.command.resource() + "' in time");
        } catch (ExecutionException ex) {
            throw rethrow(ex.getCause());
        }
    }

    /** Acquires a lock without blocking the caller; cancelling the future abandons the attempt. */
    public CompletableFuture<LockLease> acquireAsync(LockRequest request) {
        try {
            return acquireAsync(prepare(request, true));
        } catch (LockException | IllegalArgumentException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /** Acquires the lock of {@code resource} if it is free right now, without queueing. */
    public Optional<LockLease> tryAcquire(String resource) {
        return tryAcquire(LockRequest.of(resource));
    }

    /** Acquires the lock of the request if it is free right now, without queueing; its wait timeout is ignored. */
    public Optional<LockLease> tryAcquire(LockRequest request) {
        try {
            return Optional.of(await(prepare(request, false)));
        } catch (LockAcquisitionTimeoutException busy) {
            return Optional.empty();
        }
    }

    /** The locks this client holds right now, one entry per acquisition (not per re-entrant hold). */
    public List<HeldLock> heldLocks() {
        List<HeldLock> held = new ArrayList<>();
        for (Entry entry : this.entries.values()) {
            if (entry.lock.isValid()) {
                held.add(new HeldLock(
                        entry.lock.resource().value(),
                        entry.lock.requestId(),
                        entry.lock.leaseId(),
                        entry.lock.fencingToken(),
                        entry.acquiredAt,
                        toInstant(entry.lock.validUntilNanos()),
                        entry.holds(),
                        entry.lockName));
            }
        }
        return held;
    }

    /**
     * One lock held by this client, as shown to operators.
     *
     * @param resource the resource
     * @param requestId the acquisition's request id
     * @param leaseId the backend lease
     * @param fencingToken the token
     * @param acquiredAt when it was acquired
     * @param expiresAt the current local validity deadline
     * @param holds how many re-entrant holds are open
     * @param lockName the bounded name the lock was requested with
     */
    public record HeldLock(
            String resource,
            String requestId,
            long leaseId,
            long fencingToken,
            Instant acquiredAt,
            Instant expiresAt,
            int holds,
            String lockName) {}

    /** Number of acquisitions of this client currently in progress (waiting or in flight). */
    public int waitingCount() {
        return this.waiting.get();
    }

    /** Number of distinct locks this client holds. */
    public int heldCount() {
        int count = 0;
        for (Entry entry : this.entries.values()) {
            if (entry.lock.isValid()) {
                count++;
            }
        }
        return count;
    }

    /** The backend this client uses. */
    public LockBackend backend() {
        return this.backend;
    }

    /** What the backend offers operators (health, queues, force-release), if it offers it. */
    public Optional<LockAdministration> administration() {
        return (this.backend instanceof LockAdministration administration)
                ? Optional.of(administration)
                : Optional.empty();
    }

    /** The bounds and defaults this client applies to requests. */
    public Settings settings() {
        return this.settings;
    }

    /** Releases every lock still held and closes the backend. */
    @Override
    public void close() {
        if (this.closed.compareAndSet(false, true)) {
            this.backend.close();
            this.entries.clear();
        }
    }

    private Attempt prepare(LockRequest request, boolean wait) {
        Objects.requireNonNull(request, "request must not be null");
        if (this.closed.get()) {
            throw new IllegalStateException("LockClient is closed");
        }
        ResourceName resource = ResourceName.of(request.resource(), this.settings.maxResourceLength);
        String requestId = (request.requestId() != null)
                ? validateRequestId(request.requestId(), resource)
                : UUID.randomUUID().toString();
        long ttlSeconds = this.settings.ttlSeconds(request.leaseTtl(), resource);
        Duration waitTimeout = wait ? this.settings.waitTimeout(request.waitTimeout(), resource) : Duration.ZERO;
        boolean queue = !waitTimeout.isZero();
        // A try-lock still needs time for its round trip; a waiting lock gets exactly its wait timeout.
        Duration budget = queue ? waitTimeout : this.settings.tryTimeout;
        long deadline = System.nanoTime() + budget.toNanos();
        String lockName = (request.lockName() != null) ? request.lockName() : LockEventListener.UNNAMED;
        return new Attempt(new AcquireCommand(resource, requestId, ttlSeconds, queue, deadline), lockName);
    }

    private static String validateRequestId(String requestId, ResourceName resource) {
        if (requestId.isEmpty() || requestId.length() > 128) {
            throw new InvalidLockKeyException(
                    "Request id for lock '" + resource + "' must have 1 to 128 characters, got " + requestId.length());
        }
        for (int i = 0; i < requestId.length(); i++) {
            char c = requestId.charAt(i);
            if (c < 0x21 || c > 0x7e) {
                throw new InvalidLockKeyException("Request id for lock '" + resource
                        + "' may contain only printable ASCII characters without spaces");
            }
        }
        return requestId;
    }

    private CompletableFuture<LockLease> acquireAsync(Attempt attempt) {
        AcquireCommand command = attempt.command;
        Entry existing = this.entries.get(entryKey(command.resource(), command.requestId()));
        if (existing != null && existing.lock.isValid()) {
            Hold hold = existing.newHold();
            if (hold != null) {
                this.events.acquired(hold, existing.lockName, Duration.ZERO, true);
                return CompletableFuture.completedFuture(hold);
            }
        }
        AtomicInteger count = this.attempts.computeIfAbsent(command.resource(), key -> new AtomicInteger());
        if (count.incrementAndGet() > this.settings.maxWaitersPerResource) {
            endAttempt(command.resource(), count);
            return CompletableFuture.failedFuture(new LockQueueFullException("Lock '" + command.resource()
                    + "' already has " + this.settings.maxWaitersPerResource
                    + " callers of this client waiting; raise max-waiters-per-resource or shed load"));
        }
        this.waiting.incrementAndGet();
        long started = System.nanoTime();
        CompletableFuture<LockLease> result = new CompletableFuture<>();
        CompletableFuture<BackendLock> pending;
        try {
            pending = this.backend.acquire(command);
        } catch (RuntimeException ex) {
            pending = CompletableFuture.failedFuture(ex);
        }
        CompletableFuture<BackendLock> backendFuture = pending;
        backendFuture.whenComplete((lock, failure) -> {
            this.waiting.decrementAndGet();
            endAttempt(command.resource(), count);
            Duration waited = Duration.ofNanos(System.nanoTime() - started);
            if (failure != null) {
                Throwable cause = unwrap(failure);
                this.events.acquireFailed(command.resource(), attempt.lockName, cause, waited);
                result.completeExceptionally(cause);
                return;
            }
            Hold hold = register(lock, attempt.lockName);
            this.events.acquired(hold, hold.entry.lockName, waited, false);
            if (!result.complete(hold)) {
                // The caller gave up while the store granted the lock: hand it straight back, without
                // blocking this callback thread.
                hold.giveUp(false);
            }
        });
        result.whenComplete((lease, failure) -> {
            if (result.isCancelled()) {
                backendFuture.cancel(false);
            }
        });
        return result;
    }

    private void endAttempt(ResourceName resource, AtomicInteger count) {
        if (count.decrementAndGet() == 0) {
            this.attempts.remove(resource, count);
        }
    }

    private Hold register(BackendLock lock, String lockName) {
        String key = entryKey(lock.resource(), lock.requestId());
        while (true) {
            Entry entry = this.entries.compute(
                    key,
                    (k, current) -> (current != null && current.lock == lock) ? current : new Entry(lock, lockName));
            Hold hold = entry.newHold();
            if (hold != null) {
                if (entry.holds() == 1) {
                    lock.onLost(cause -> this.events.lost(hold, entry.lockName, cause));
                }
                return hold;
            }
            // The entry was emptied by a concurrent release of its last hold; start a fresh one.
            this.entries.remove(key, entry);
        }
    }

    private static String entryKey(ResourceName resource, String requestId) {
        // Resource names cannot contain control characters, so the separator is unambiguous.
        return resource.value() + '\u0000' + requestId;
    }

    private static Instant toInstant(long nanoDeadline) {
        long remaining = nanoDeadline - System.nanoTime();
        return Instant.now().plusNanos(remaining);
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    private RuntimeException rethrow(Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        return new LockException("Lock operation failed on " + this.backend.describe(), cause);
    }

    /** Acquisition state shared by all re-entrant holds of one backend lock. */
    private final class Entry {

        final BackendLock lock;

        final String lockName;

        final Instant acquiredAt = Instant.now();

        final long acquiredNanos = System.nanoTime();

        private int holds;

        Entry(BackendLock lock, String lockName) {
            this.lock = lock;
            this.lockName = lockName;
        }

        /** A new hold, or {@code null} if the last hold was already released. */
        synchronized Hold newHold() {
            if (this.holds < 0) {
                return null;
            }
            this.holds++;
            return new Hold(this);
        }

        synchronized int holds() {
            return Math.max(this.holds, 0);
        }

        /** Drops one hold; returns whether it was the last one. */
        synchronized boolean dropHold() {
            this.holds--;
            if (this.holds == 0) {
                this.holds = -1;
                return true;
            }
            return false;
        }
    }

    /** One hold of a lock, as handed to callers. */
    private final class Hold implements LockLease {

        private final Entry entry;

        private final AtomicBoolean released = new AtomicBoolean();

        /** What the last release call reports: whether it gave up a hold of a valid lock. */
        private volatile boolean releasedValid;

        Hold(Entry entry) {
            this.entry = entry;
        }

        @Override
        public String resource() {
            return this.entry.lock.resource().value();
        }

        @Override
        public String requestId() {
            return this.entry.lock.requestId();
        }

        @Override
        public long leaseId() {
            return this.entry.lock.leaseId();
        }

        @Override
        public long fencingToken() {
            return this.entry.lock.fencingToken();
        }

        @Override
        public Instant expiresAt() {
            return toInstant(this.entry.lock.validUntilNanos());
        }

        @Override
        public boolean isValid() {
            return !this.released.get() && this.entry.lock.isValid();
        }

        @Override
        public Instant renew() {
            if (this.released.get()) {
                throw new LockLostException("Lock '" + resource() + "' was already released by this holder");
            }
            long started = System.nanoTime();
            try {
                long deadline = LockClient.this
                        .backend
                        .renew(this.entry.lock)
                        .get(
                                LockClient.this.settings.tryTimeout.toNanos() + BACKEND_GRACE.toNanos(),
                                TimeUnit.NANOSECONDS);
                LockClient.this.events.renewed(
                        this, this.entry.lockName, Duration.ofNanos(System.nanoTime() - started), null);
                return toInstant(deadline);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new LockException("Interrupted while renewing lock '" + resource() + "'", ex);
            } catch (TimeoutException ex) {
                LockBackendUnavailableException failure = new LockBackendUnavailableException("Lock backend "
                        + LockClient.this.backend.describe() + " did not confirm lock '" + resource() + "' in time");
                LockClient.this.events.renewed(
                        this, this.entry.lockName, Duration.ofNanos(System.nanoTime() - started), failure);
                throw failure;
            } catch (ExecutionException ex) {
                RuntimeException failure = rethrow(ex.getCause());
                LockClient.this.events.renewed(
                        this, this.entry.lockName, Duration.ofNanos(System.nanoTime() - started), failure);
                throw failure;
            }
        }

        @Override
        public boolean release() {
            Optional<CompletableFuture<Boolean>> deletion = giveUp(false);
            if (deletion.isEmpty()) {
                return this.releasedValid;
            }
            // Wait for the delete so the lock is free when this returns; if it fails, the backend keeps
            // retrying in the background and the lease expiry is the last resort.
            try {
                deletion.get().get(LockClient.this.settings.tryTimeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException ex) {
                logger.warn(
                        "Release of lock '{}' did not reach the store and is being retried: {}",
                        resource(),
                        unwrap(ex).toString());
            }
            return this.releasedValid;
        }

        /**
         * Gives this hold up without waiting for the store: returns the pending deletion when this
         * was the last hold, or nothing when other holds remain or it was already released.
         * {@code deferred}: nobody waits for the deletion, so it may ride on a later request.
         */
        Optional<CompletableFuture<Boolean>> giveUp(boolean deferred) {
            if (!this.released.compareAndSet(false, true)) {
                this.releasedValid = false;
                return Optional.empty();
            }
            BackendLock lock = this.entry.lock;
            this.releasedValid = lock.isValid();
            if (!this.entry.dropHold()) {
                return Optional.empty();
            }
            LockClient.this.entries.remove(entryKey(lock.resource(), lock.requestId()), this.entry);
            long started = System.nanoTime();
            Duration held = Duration.ofNanos(started - this.entry.acquiredNanos);
            CompletableFuture<Boolean> deletion =
                    deferred ? LockClient.this.backend.releaseDeferred(lock) : LockClient.this.backend.release(lock);
            deletion.whenComplete((deleted, failure) -> LockClient.this.events.released(
                    this, this.entry.lockName, held, Duration.ofNanos(System.nanoTime() - started)));
            return Optional.of(deletion);
        }

        @Override
        public CompletableFuture<Boolean> releaseAsync() {
            Optional<CompletableFuture<Boolean>> deletion = giveUp(true);
            boolean valid = this.releasedValid;
            return deletion.map(future -> future.handle((deleted, failure) -> valid))
                    .orElseGet(() -> CompletableFuture.completedFuture(valid));
        }

        @Override
        public void onLost(Consumer<LockLostException> listener) {
            Objects.requireNonNull(listener, "listener must not be null");
            this.entry.lock.onLost(cause -> LockClient.this.callbackExecutor.execute(() -> listener.accept(cause)));
        }

        @Override
        public void close() {
            release();
        }

        @Override
        public String toString() {
            return "LockLease[resource=" + resource() + ", token=" + fencingToken() + ", leaseId=" + leaseId()
                    + ", valid=" + isValid() + "]";
        }
    }

    private record Attempt(AcquireCommand command, String lockName) {}

    /** The defaults and bounds of a client, as configured. */
    public static final class Settings {

        private final Duration defaultLeaseTtl;

        private final Duration defaultWaitTimeout;

        private final Duration maxLeaseTtl;

        private final Duration maxWaitTimeout;

        private final Duration tryTimeout;

        private final int maxWaitersPerResource;

        private final int maxResourceLength;

        private Settings(Builder builder) {
            this.defaultLeaseTtl = builder.defaultLeaseTtl;
            this.defaultWaitTimeout = builder.defaultWaitTimeout;
            this.maxLeaseTtl = builder.maxLeaseTtl;
            this.maxWaitTimeout = builder.maxWaitTimeout;
            this.tryTimeout = builder.tryTimeout;
            this.maxWaitersPerResource = builder.maxWaitersPerResource;
            this.maxResourceLength = builder.maxResourceLength;
            ttlSeconds(this.defaultLeaseTtl, null);
            if (this.defaultWaitTimeout.compareTo(this.maxWaitTimeout) > 0) {
                throw new IllegalArgumentException("Default wait timeout " + this.defaultWaitTimeout
                        + " exceeds the maximum wait timeout " + this.maxWaitTimeout);
            }
        }

        public Duration defaultLeaseTtl() {
            return this.defaultLeaseTtl;
        }

        public Duration defaultWaitTimeout() {
            return this.defaultWaitTimeout;
        }

        public Duration maxLeaseTtl() {
            return this.maxLeaseTtl;
        }

        public Duration maxWaitTimeout() {
            return this.maxWaitTimeout;
        }

        public int maxWaitersPerResource() {
            return this.maxWaitersPerResource;
        }

        public int maxResourceLength() {
            return this.maxResourceLength;
        }

        /**
         * Converts a lease TTL to etcd's whole seconds, in this one place: below one second is an
         * error (etcd cannot express it), a fraction above is rounded up (never shorter than asked).
         */
        long ttlSeconds(Duration requested, ResourceName resource) {
            Duration ttl = (requested != null) ? requested : this.defaultLeaseTtl;
            String what = (resource != null) ? "lock '" + resource + "'" : "the default";
            if (ttl.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("Lease TTL " + ttl + " for " + what
                        + " is below one second; etcd leases are whole seconds, use at least 1s");
            }
            if (ttl.compareTo(this.maxLeaseTtl) > 0) {
                throw new IllegalArgumentException("Lease TTL " + ttl + " for " + what + " exceeds the maximum "
                        + this.maxLeaseTtl + " (max-lease-ttl)");
            }
            long seconds = ttl.getSeconds();
            return (ttl.getNano() > 0) ? seconds + 1 : seconds;
        }

        Duration waitTimeout(Duration requested, ResourceName resource) {
            Duration wait = (requested != null) ? requested : this.defaultWaitTimeout;
            if (wait.isNegative()) {
                throw new IllegalArgumentException("Wait timeout " + wait + " for lock '" + resource + "' is negative");
            }
            if (wait.compareTo(this.maxWaitTimeout) > 0) {
                throw new IllegalArgumentException("Wait timeout " + wait + " for lock '" + resource
                        + "' exceeds the maximum " + this.maxWaitTimeout + " (max-wait-timeout)");
            }
            return wait;
        }
    }

    /** Builds a {@link LockClient}. */
    public static final class Builder {

        private final LockBackend backend;

        private Duration defaultLeaseTtl = Duration.ofSeconds(30);

        private Duration defaultWaitTimeout = Duration.ofSeconds(10);

        private Duration maxLeaseTtl = Duration.ofMinutes(10);

        private Duration maxWaitTimeout = Duration.ofMinutes(5);

        private Duration tryTimeout = Duration.ofSeconds(5);

        private int maxWaitersPerResource = 1_000;

        private int maxResourceLength = ResourceName.DEFAULT_MAX_LENGTH;

        private final List<LockEventListener> listeners = new ArrayList<>();

        private Executor callbackExecutor = Runnable::run;

        private Builder(LockBackend backend) {
            this.backend = Objects.requireNonNull(backend, "backend must not be null");
        }

        /** Lease TTL of requests that set none (30 s). */
        public Builder defaultLeaseTtl(Duration ttl) {
            this.defaultLeaseTtl = positive(ttl, "defaultLeaseTtl");
            return this;
        }

        /** Wait timeout of requests that set none (10 s); zero means try once. */
        public Builder defaultWaitTimeout(Duration timeout) {
            this.defaultWaitTimeout = notNegative(timeout, "defaultWaitTimeout");
            return this;
        }

        /** Largest lease TTL a request may ask for (10 min). */
        public Builder maxLeaseTtl(Duration ttl) {
            this.maxLeaseTtl = positive(ttl, "maxLeaseTtl");
            return this;
        }

        /** Largest wait timeout a request may ask for (5 min). */
        public Builder maxWaitTimeout(Duration timeout) {
            this.maxWaitTimeout = notNegative(timeout, "maxWaitTimeout");
            return this;
        }

        /** Time a try-lock (no waiting) may take for its round trip to the store (5 s). */
        public Builder tryTimeout(Duration timeout) {
            this.tryTimeout = positive(timeout, "tryTimeout");
            return this;
        }

        /** How many callers of this client may wait for one resource at once (1000). */
        public Builder maxWaitersPerResource(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxWaitersPerResource must be at least 1, got " + max);
            }
            this.maxWaitersPerResource = max;
            return this;
        }

        /** Longest resource name accepted, in characters (255). */
        public Builder maxResourceLength(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxResourceLength must be at least 1, got " + max);
            }
            this.maxResourceLength = max;
            return this;
        }

        /** Adds a receiver of lock events, for metrics and audit; listeners are called in the order added. */
        public Builder eventListener(LockEventListener listener) {
            this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
            return this;
        }

        /** Runs {@link LockLease#onLost} listeners (default: the thread that detects the loss). */
        public Builder callbackExecutor(Executor executor) {
            this.callbackExecutor = Objects.requireNonNull(executor, "executor must not be null");
            return this;
        }

        /**
         * Builds the client.
         *
         * @throws IllegalArgumentException when the defaults break the bounds
         */
        public LockClient build() {
            return new LockClient(this);
        }

        private static Duration positive(Duration value, String name) {
            Objects.requireNonNull(value, name + " must not be null");
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, got " + value);
            }
            return value;
        }

        private static Duration notNegative(Duration value, String name) {
            Objects.requireNonNull(value, name + " must not be null");
            if (value.isNegative()) {
                throw new IllegalArgumentException(name + " must not be negative, got " + value);
            }
            return value;
        }
    }
}
