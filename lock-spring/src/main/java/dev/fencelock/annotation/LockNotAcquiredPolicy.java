package dev.fencelock.annotation;

/**
 * What a {@link DistributedLock @DistributedLock} method does when its lock stays busy for the
 * whole wait timeout (or too many callers of this instance already wait for it).
 *
 * <p>Only contention counts as "not acquired". When the lock store cannot be reached, the call
 * always fails with {@link dev.fencelock.LockBackendUnavailableException}, and when it refuses this
 * application with {@link dev.fencelock.LockStoreAccessDeniedException}: skipping work because etcd
 * is down or misconfigured would hide it.
 */
public enum LockNotAcquiredPolicy {

    /**
     * Throw {@link dev.fencelock.LockAcquisitionTimeoutException} (or {@link
     * dev.fencelock.LockQueueFullException}) to the caller (a {@code Mono} or {@code Flux} signals it
     * as its error); the method is not called.
     */
    THROW,

    /**
     * Do not call the method and return an "empty" value instead: {@code null} for objects and
     * {@code void}, {@code false} for {@code boolean}/{@code Boolean}, zero for other primitives,
     * {@link java.util.Optional#empty()} for {@code Optional}, a future completed with
     * {@code null} for {@code CompletionStage}/{@code CompletableFuture}, and an empty {@code Mono}
     * or {@code Flux} (which completes without a value) for those.
     */
    SKIP
}
