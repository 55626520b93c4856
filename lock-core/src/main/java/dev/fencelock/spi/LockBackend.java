package dev.fencelock.spi;

import java.util.concurrent.CompletableFuture;

/**
 * The one interface a lock store implements. Everything store-independent (validation, bounds,
 * re-entry, waiter limits, listeners) lives in {@link dev.fencelock.LockClient}; a backend only
 * grants, renews and releases locks and reports when it loses one.
 *
 * <p>A backend is correct when it passes the contract test kit in {@code lock-test}. What operators
 * need besides locking (health, queue inspection, force-release) is the optional {@link
 * LockAdministration}, which a backend implements as well when it can.
 */
public interface LockBackend extends AutoCloseable {

    /**
     * Acquires a lock. The future completes by the command's deadline: with the lock, or with
     * {@link dev.fencelock.LockAcquisitionTimeoutException} (busy),
     * {@link dev.fencelock.LockBackendUnavailableException} (store unreachable), {@link
     * dev.fencelock.LockStoreAccessDeniedException} (credentials, certificate or permissions
     * refused; final, not to be retried), or another
     * {@link dev.fencelock.LockException}. Cancelling the future abandons the attempt. When the
     * attempt does not end with the lock, the backend leaves nothing behind in the store, even if
     * it cannot tell whether its write was applied.
     *
     * <p>Acquiring again with the same request id while the backend still holds that lock returns
     * the same {@link BackendLock} instance; once {@link #release} was called for it, never again.
     */
    CompletableFuture<BackendLock> acquire(AcquireCommand command);

    /**
     * Confirms that {@code lock} is still held and extends its lease.
     *
     * @return the future of the new validity deadline ({@link System#nanoTime()} based); fails
     *     with {@link dev.fencelock.LockLostException} if the lock is gone, after marking it lost
     */
    CompletableFuture<Long> renew(BackendLock lock);

    /**
     * Deletes {@code lock} if it is still the one with its fencing token; idempotent.
     *
     * @return the future of whether this call deleted it
     */
    CompletableFuture<Boolean> release(BackendLock lock);

    /**
     * Like {@link #release}, for a caller that does not wait for the deletion: the backend may
     * send it together with a later request (a late delete never breaks safety; the lock only
     * stays held a little longer). The default releases at once.
     *
     * @return the future of whether the deletion deleted it
     */
    default CompletableFuture<Boolean> releaseDeferred(BackendLock lock) {
        return release(lock);
    }

    /**
     * Whether this store's tokens are fencing tokens: larger for every new holder of a resource even
     * across the store's own failures, so a database may refuse a write that carries a smaller one.
     * A store that can hand one token (or one lock) out twice, as Redis can after a failover to a
     * replica that missed writes, answers {@code false}; the JDBC guard then refuses its fences.
     */
    default boolean issuesFencingTokens() {
        return true;
    }

    /** A short human description of where the locks live, for logs, errors and health details. */
    String describe();

    /** Stops background work and gives up every lock still held (they are marked released). */
    @Override
    void close();
}
