package dev.fencelock;

import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockAdministration;
import dev.fencelock.spi.LockBackend;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
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
                    + " did not answer for lock '" + attempt.command().resource() + "' in time");
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
        Acquisition existing = this.acquisitions.reenter(command.resource(), command.requestId());
        if (existing != null) {
            LockHold hold = new LockHold(this, existing);
            this.events.acquired(hold, existing.lockName(), Duration.ZERO, true);
            return CompletableFuture.completedFuture(hold);
        }
        WaiterAdmission.Ticket ticket;
        try {
            ticket = this.admission.admit(command.resource());
        } catch (LockQueueFullException full) {
            return CompletableFuture.failedFuture(full);
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
            Duration waited = Duration.ofNanos(System.nanoTime() - started);
            Throwable cause = (failure != null) ? unwrap(failure) : null;
            this.hotResources.record(
                    command.resource(), waited.toNanos(), waiting, cause instanceof LockAcquisitionTimeoutException);
            if (cause != null) {
                this.events.acquireFailed(
                        command.resource(), attempt.lockName(), cause, waited, command.waitForRelease());
                result.completeExceptionally(cause);
                return;
            }
            LockHold hold = register(lock, attempt.lockName());
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

    private LockHold register(BackendLock lock, String lockName) {
        Acquisition acquisition = this.acquisitions.register(lock, lockName);
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
