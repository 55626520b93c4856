package dev.fencelock;

import dev.fencelock.spi.BackendLock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One hold of a lock of a {@link LockClient}, as handed to callers. */
final class LockHold implements LockLease {

    // Logged under the client's name: that is the logger users already tune for FenceLock's client.
    private static final Logger logger = LoggerFactory.getLogger(LockClient.class);

    private final LockClient client;

    private final Acquisition acquisition;

    private final AtomicBoolean released = new AtomicBoolean();

    /** What the last release call reports: whether it gave up a hold of a valid lock. */
    private volatile boolean releasedValid;

    LockHold(LockClient client, Acquisition acquisition) {
        this.client = client;
        this.acquisition = acquisition;
    }

    /** The client this is a hold of. */
    LockClient client() {
        return this.client;
    }

    /** The acquisition this is one hold of. */
    Acquisition acquisition() {
        return this.acquisition;
    }

    @Override
    public String resource() {
        return this.acquisition.lock().resource().value();
    }

    @Override
    public String lockName() {
        return this.acquisition.lockName();
    }

    @Override
    public String requestId() {
        return this.acquisition.lock().requestId();
    }

    @Override
    public LockMode mode() {
        return this.acquisition.lock().kind().mode();
    }

    @Override
    public int permits() {
        return this.acquisition.lock().kind().permits();
    }

    @Override
    public boolean isFencing() {
        return this.client.backend().issuesFencingTokens();
    }

    @Override
    public long leaseId() {
        return this.acquisition.lock().leaseId();
    }

    @Override
    public long fencingToken() {
        return this.acquisition.lock().fencingToken();
    }

    @Override
    public Instant expiresAt() {
        return LockClient.toInstant(this.acquisition.lock().validUntilNanos());
    }

    @Override
    public boolean isValid() {
        return !this.released.get() && this.acquisition.lock().isValid();
    }

    @Override
    public Instant renew() {
        if (this.released.get()) {
            throw new LockLostException("Lock '" + resource() + "' was already released by this holder");
        }
        long started = System.nanoTime();
        LockEventListener events = this.client.events();
        String lockName = this.acquisition.lockName();
        try {
            long deadline = this.client
                    .backend()
                    .renew(this.acquisition.lock())
                    .get(
                            this.client.settings().tryTimeout().toNanos() + LockClient.BACKEND_GRACE.toNanos(),
                            TimeUnit.NANOSECONDS);
            events.renewed(this, lockName, Duration.ofNanos(System.nanoTime() - started), null);
            return LockClient.toInstant(deadline);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockException("Interrupted while renewing lock '" + resource() + "'", ex);
        } catch (TimeoutException ex) {
            LockBackendUnavailableException failure = new LockBackendUnavailableException("Lock backend "
                    + this.client.backend().describe() + " did not confirm lock '" + resource() + "' in time");
            events.renewed(this, lockName, Duration.ofNanos(System.nanoTime() - started), failure);
            throw failure;
        } catch (ExecutionException ex) {
            RuntimeException failure = this.client.rethrow(ex.getCause());
            events.renewed(this, lockName, Duration.ofNanos(System.nanoTime() - started), failure);
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
            deletion.get().get(this.client.settings().tryTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException ex) {
            logger.warn(
                    "Release of lock '{}' did not reach the store and is being retried: {}",
                    resource(),
                    LockClient.unwrap(ex).toString());
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
        BackendLock lock = this.acquisition.lock();
        this.releasedValid = lock.isValid();
        if (!this.releasedValid) {
            // Its validity ran out, but nothing may have said so yet: a process that slept past the
            // deadline can release before the backend's deadline check runs. It is lost, not just
            // released: listeners (metrics, audit, the locked call) hear it before the release.
            lock.markLost(new LockLostException("Lock '" + resource() + "' (token " + fencingToken()
                    + ") was lost: its validity had run out when its holder released it"));
        }
        if (!this.client.acquisitions().dropHold(this.acquisition)) {
            return Optional.empty();
        }
        long started = System.nanoTime();
        Duration held = Duration.ofNanos(started - this.acquisition.acquiredNanos());
        CompletableFuture<Boolean> deletion;
        try {
            deletion = deferred
                    ? this.client.backend().releaseDeferred(lock)
                    : this.client.backend().release(lock);
        } finally {
            // Only now may an acquisition of the same request id go on: the backend no longer hands
            // this lock out, so it gets a lock of its own, not one this release ends.
            this.client.acquisitions().forgetReleased(this.acquisition);
        }
        // Only a store that answered "nothing to delete" says the lock was gone; a failed delete is retried.
        deletion.whenComplete((deleted, failure) -> this.client
                .events()
                .released(
                        this,
                        this.acquisition.lockName(),
                        held,
                        Duration.ofNanos(System.nanoTime() - started),
                        failure == null && Boolean.FALSE.equals(deleted)));
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
        this.acquisition.lock().onLost(cause -> this.client.callbackExecutor().execute(() -> listener.accept(cause)));
    }

    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return "LockLease[resource=" + resource() + ", token=" + fencingToken() + ", leaseId=" + leaseId() + ", valid="
                + isValid()
                + (isExclusive() ? "" : ", " + this.acquisition.lock().kind().describe())
                + (isFencing() ? "" : ", not fencing") + "]";
    }
}
