package dev.fencelock.integration;

import dev.fencelock.FencingContext;
import java.util.Optional;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * A lock of a {@link FenceLockRegistry}: a {@link java.util.concurrent.locks.Lock} held by one
 * thread at a time in this process and by one process at a time on etcd, with the fencing token
 * of that hold.
 *
 * <p>Re-entrant per thread: nested holds share one etcd lock and one token. Only the thread that
 * holds it may unlock it. While a thread holds it, the lock's fence is on that thread's {@link
 * FencingContext} (unless the registry was built without), so FenceLock's JDBC guard fences the
 * writes that thread makes.
 */
public interface FencedLock extends DistributedLock {

    /** The key this lock was obtained with. */
    String key();

    /** The FenceLock resource behind it: the registry's key prefix and the key. */
    String resource();

    /**
     * The fencing token of the current hold, whichever thread of this process holds it.
     *
     * @throws IllegalStateException when no thread of this process holds the lock
     */
    long fencingToken();

    /** The fence of the current hold, for writes made on other threads; empty when not held here. */
    Optional<FencingContext.Fence> fence();

    /** Whether the calling thread holds this lock. */
    boolean isHeldByCurrentThread();
}
