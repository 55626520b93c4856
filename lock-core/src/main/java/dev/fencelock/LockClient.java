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
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

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

    /** How long a blocking call waits past its own deadline for a backend that fails to answer. */
    static final Duration BACKEND_GRACE = Duration.ofSeconds(10);

    private final LockBackend backend;

    private final LockClientSettings settings;

    private final LockEventListener events;

    private final Executor callbackExecutor;

    private final Acquisitions acquisitions = new Acquisitions();

    private final WaiterAdmission admission;

    private final HotResources hotResources;

    private final AtomicBoolean closed = new AtomicBoolean();

    /** The client's own callback thread, when no executor was configured; shut down with the client. */
    private final @Nullable ExecutorService ownCallbackThread;

    LockClient(
            LockBackend backend,
            LockClientSettings settings,
            LockEventListener events,
            HotResources hotResources,
            Executor callbackExecutor,
            @Nullable ExecutorService ownCallbackThread) {
        this.backend = backend;
        this.settings = settings;
        this.events = events;
        this.hotResources = hotResources;
        this.callbackExecutor = callbackExecutor;
        this.ownCallbackThread = ownCallbackThread;
        this.admission = new WaiterAdmission(settings.maxWaitersPerResource());
    }

    static LockClient withOwnCallbackThread(
            LockBackend backend, LockClientSettings settings, LockEventListener events, HotResources hotResources) {
        ExecutorService thread = Executors.newSingleThreadExecutor(runnable -> {
            Thread callbacks = new Thread(runnable, "fencelock-callbacks");
            callbacks.setDaemon(true);
            return callbacks;
        });
        return new LockClient(backend, settings, events, hotResources, thread, thread);
    }

    /** Starts building a client over {@code backend}; the client closes the backend when it closes. */
    public static LockClientBuilder builder(LockBackend backend) {
        return new LockClientBuilder(backend);
    }

    /**
     * Acquires a lock, waiting up to the request's wait timeout for the current holder.
     *
     * @throws LockAcquisitionTimeoutException when the lock stayed busy
     * @throws LockBackendUnavailableException when the store could not be reached in time
     * @throws LockStoreAccessDeniedException when the store refused this client's credentials,
     *     certificate or permissions (not temporary: do not retry)
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
    private LockLease await(AcquireAttempt attempt) {
        CompletableFuture<LockLease> future = acquireAsync(attempt);
        long waitNanos = attempt.command().remainingNanos() + BACKEND_GRACE.toNanos();
        try {
            return future.get(waitNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException ex) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new LockException(
                    "Interrupted while waiting for lock '" + attempt.command().resource() + "'", ex);
        } catch (TimeoutException ex) {
            future.cancel(true);
            throw new LockBackendUnavailableException("Lock backend " + this.backend.describe()
                            + " did not answer for lock '" + attempt.command().resource() + "' in time")
                    .resourceIfUnnamed(attempt.command().resource().value());
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

    /**
     * Acquires several locks, all or nothing.
     *
     * <ul>
     *   <li><b>One order.</b> The locks are taken one after another, sorted by normalised resource
     *       name, whatever the order of the list: two callers that name the same resources in
     *       different orders never wait for each other in a cycle.
     *   <li><b>One deadline.</b> All of them must be had within the shortest wait timeout among the
     *       requests, counted from this call; if that is zero, each is tried once.
     *   <li><b>All or nothing.</b> When one cannot be had, the ones already taken are released
     *       before the failure is thrown.
     * </ul>
     *
     * @throws IllegalArgumentException when the list is empty or names one resource twice
     * @throws LockAcquisitionTimeoutException when a lock stayed busy until the deadline
     * @throws LockBackendUnavailableException when the store could not be reached in time
     * @throws LockQueueFullException when too many callers of this client wait for one of the resources
     * @throws InvalidLockKeyException when a resource name is not valid
     */
    public MultiLockLease acquireAll(List<LockRequest> requests) {
        List<AcquireAttempt> attempts = prepareAll(requests);
        List<LockLease> taken = new ArrayList<>(attempts.size());
        try {
            for (AcquireAttempt attempt : attempts) {
                if (attempt.command().remainingNanos() == 0) {
                    throw new LockAcquisitionTimeoutException("The wait time of acquireAll ran out before lock '"
                                    + attempt.command().resource() + "', the " + (taken.size() + 1) + ". of "
                                    + attempts.size() + "; the locks taken were released")
                            .resourceIfUnnamed(attempt.command().resource().value());
                }
                taken.add(await(attempt));
            }
        } catch (RuntimeException failure) {
            for (int i = taken.size() - 1; i >= 0; i--) {
                try {
                    taken.get(i).release();
                } catch (RuntimeException releaseFailure) {
                    failure.addSuppressed(releaseFailure);
                }
            }
            throw failure;
        }
        return new MultiLockLease(taken);
    }

    /** Validates every request and orders them by resource name, under one deadline. */
    private List<AcquireAttempt> prepareAll(List<LockRequest> requests) {
        Objects.requireNonNull(requests, "requests must not be null");
        if (requests.isEmpty()) {
            throw new IllegalArgumentException("acquireAll needs at least one lock request");
        }
        if (this.closed.get()) {
            throw new IllegalStateException("LockClient is closed");
        }
        TreeMap<String, LockRequest> byResource = new TreeMap<>();
        TreeMap<String, ResourceName> names = new TreeMap<>();
        Duration wait = null;
        for (LockRequest request : requests) {
            Objects.requireNonNull(request, "requests must not contain null");
            ResourceName name = ResourceName.of(request.resource(), this.settings.maxResourceLength());
            if (byResource.putIfAbsent(name.value(), request) != null) {
                throw new IllegalArgumentException("acquireAll names lock '" + name
                        + "' twice; each resource may appear once (it would wait for itself)");
            }
            names.put(name.value(), name);
            Duration own = this.settings.waitTimeout(request.waitTimeout(), name);
            wait = (wait == null || own.compareTo(wait) < 0) ? own : wait;
        }
        boolean queue = !wait.isZero();
        long deadline = System.nanoTime() + (queue ? wait : this.settings.tryTimeout()).toNanos();
        List<AcquireAttempt> attempts = new ArrayList<>(byResource.size());
        byResource.forEach((resource, request) ->
                attempts.add(AcquireAttempt.of(request, names.get(resource), this.settings, queue, deadline)));
        return attempts;
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
        return this.acquisitions.held();
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
     * @param mode exclusive or shared
     * @param permits the semaphore's number of permits, 1 for a lock
     */
    public record HeldLock(
            String resource,
            String requestId,
            long leaseId,
            long fencingToken,
            Instant acquiredAt,
            Instant expiresAt,
            int holds,
            String lockName,
            LockMode mode,
            int permits) {}

    /**
     * The resources this client's callers waited for most in the last few minutes, hottest first
     * (at most {@link LockClientBuilder#hotResources(int)} of them; empty when that is zero). Kept
     * in bounded memory whatever the number of resources; see {@link HotResource} for what the
     * figures mean and how exact they are.
     */
    public List<HotResource> hotResources() {
        return this.hotResources.ranking(this.admission::attemptsOn);
    }

    /** How many resources {@link #hotResources()} ranks at most; zero when it ranks none. */
    public int hotResourceRanks() {
        return this.hotResources.size();
    }

    /** Number of acquisitions of this client currently in progress (waiting or in flight). */
    public int waitingCount() {
        return this.admission.waitingCount();
    }

    /** Number of distinct locks this client holds. */
    public int heldCount() {
        return this.acquisitions.heldCount();
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

    /**
     * Tells this client's event listeners that {@code lease} was lost after the work it protected had
     * committed, so the loss did not fail that work ({@code @DistributedLock} reports this; metrics
     * count it apart from losses that did). Leases of other clients are ignored.
     */
    public void reportLostAfterCommit(LockLease lease) {
        if (lease instanceof LockHold hold && hold.client() == this) {
            this.events.lostAfterCommit(hold, hold.acquisition().lockName());
        }
    }

    /** The bounds and defaults this client applies to requests. */
    public LockClientSettings settings() {
        return this.settings;
    }

    /** Releases every lock still held and closes the backend. */
    @Override
    public void close() {
        if (this.closed.compareAndSet(false, true)) {
            this.backend.close();
            this.acquisitions.clear();
            if (this.ownCallbackThread != null) {
                // Listeners already queued still run; a listener that never returns does not hold up close.
                this.ownCallbackThread.shutdown();
            }
        }
    }

    LockEventListener events() {
        return this.events;
    }

    Executor callbackExecutor() {
        return this.callbackExecutor;
    }

    Acquisitions acquisitions() {
        return this.acquisitions;
    }

    private AcquireAttempt prepare(LockRequest request, boolean wait) {
        Objects.requireNonNull(request, "request must not be null");
        if (this.closed.get()) {
            throw new IllegalStateException("LockClient is closed");
        }
        return AcquireAttempt.of(request, this.settings, wait);
    }

    private CompletableFuture<LockLease> acquireAsync(AcquireAttempt attempt) {
        AcquireCommand command = attempt.command();
        Acquisition existing;
        try {
            existing = this.acquisitions.reenter(command.resource(), command.requestId(), command.kind());
        } catch (LockException mismatch) {
            return CompletableFuture.failedFuture(mismatch);
        }
        if (existing != null) {
            LockHold hold = new LockHold(this, existing);
            this.events.acquired(hold, existing.lockName(), Duration.ZERO, true);
            return CompletableFuture.completedFuture(hold);
        }
        WaiterAdmission.Ticket ticket;
        try {
            ticket = this.admission.admit(command.resource());
        } catch (LockQueueFullException full) {
            return CompletableFuture.failedFuture(
                    full.resourceIfUnnamed(command.resource().value()));
        }
        long started = System.nanoTime();
        int waiting = ticket.attemptsAtAdmission();
        CompletableFuture<LockLease> result = new CompletableFuture<>();
        CompletableFuture<BackendLock> pending;
        try {
            pending = this.backend.acquire(command);
        } catch (RuntimeException ex) {
            pending = CompletableFuture.failedFuture(ex);
        }
        CompletableFuture<BackendLock> backendFuture = pending;
        backendFuture.whenComplete((lock, failure) -> {
            ticket.leave();
            LockHold hold = (failure == null) ? register(lock, attempt.lockName()) : null;
            if (failure == null && hold == null) {
                startOverAfterRelease(attempt, lock, started, result);
                return;
            }
            Duration waited = Duration.ofNanos(System.nanoTime() - started);
            Throwable cause = (failure != null) ? unwrap(failure) : null;
            this.hotResources.record(
                    command.resource(), waited.toNanos(), waiting, cause instanceof LockAcquisitionTimeoutException);
            if (cause != null) {
                if (cause instanceof LockException lockFailure) {
                    lockFailure.resourceIfUnnamed(command.resource().value());
                }
                if (!attempt.endedAsPoll(cause)) {
                    this.events.acquireFailed(
                            command.resource(), attempt.lockName(), cause, waited, command.waitForRelease());
                }
                result.completeExceptionally(cause);
                return;
            }
            this.events.acquired(hold, hold.acquisition().lockName(), waited, false);
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

    /**
     * The store granted a lock whose release has begun (its last hold, of the same request id, was
     * dropped): that release ends it, so it is not handed out. Once the backend was told to release
     * it, and so hands it out no more, the attempt starts over and gets a lock of its own, with a new
     * token.
     */
    private void startOverAfterRelease(
            AcquireAttempt attempt, BackendLock lock, long started, CompletableFuture<LockLease> result) {
        AcquireCommand command = attempt.command();
        CompletableFuture<Void> handedOver = this.acquisitions.releaseHandedOver(lock);
        handedOver
                .copy()
                .orTimeout(command.remainingNanos(), TimeUnit.NANOSECONDS)
                .whenComplete((done, timeout) -> {
                    if (result.isDone()) {
                        return; // the caller gave up
                    }
                    if (timeout != null || command.remainingNanos() == 0) {
                        LockAcquisitionTimeoutException failure = new LockAcquisitionTimeoutException("Lock '"
                                + command.resource() + "' was still being released under request id '"
                                + command.requestId()
                                + "' when the wait timeout of this request ran out");
                        this.events.acquireFailed(
                                command.resource(),
                                attempt.lockName(),
                                failure,
                                Duration.ofNanos(System.nanoTime() - started),
                                command.waitForRelease());
                        result.completeExceptionally(failure);
                        return;
                    }
                    CompletableFuture<LockLease> again = acquireAsync(attempt);
                    result.whenComplete((lease, failure) -> {
                        if (result.isCancelled()) {
                            again.cancel(false);
                        }
                    });
                    again.whenComplete((lease, failure) -> {
                        if (failure != null) {
                            result.completeExceptionally(unwrap(failure));
                        } else if (!result.complete(lease)) {
                            ((LockHold) lease).giveUp(false); // the caller gave up meanwhile
                        }
                    });
                });
    }

    private @Nullable LockHold register(BackendLock lock, String lockName) {
        Acquisition acquisition = this.acquisitions.register(lock, lockName);
        if (acquisition == null) {
            return null;
        }
        LockHold hold = new LockHold(this, acquisition);
        if (acquisition.holds() == 1) {
            // Off the detecting thread: it is the backend's, which also keeps leases alive.
            lock.onLost(cause ->
                    this.callbackExecutor.execute(() -> this.events.lost(hold, acquisition.lockName(), cause)));
        }
        return hold;
    }

    static Instant toInstant(long nanoDeadline) {
        long remaining = nanoDeadline - System.nanoTime();
        return Instant.now().plusNanos(remaining);
    }

    static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    RuntimeException rethrow(Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        return new LockException("Lock operation failed on " + this.backend.describe(), cause);
    }
}
