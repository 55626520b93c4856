package dev.fencelock.spi;

import dev.fencelock.LockLostException;
import dev.fencelock.ResourceName;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock as a backend holds it: identity, fencing token, local validity, and the one-way
 * transitions to released or lost. Backends extend it and supply {@link #validUntilNanos()}.
 */
public abstract class BackendLock {

    private static final Logger logger = LoggerFactory.getLogger(BackendLock.class);

    private final ResourceName resource;

    private final String requestId;

    private final long leaseId;

    private final long fencingToken;

    private final LockKind kind;

    private final List<Consumer<LockLostException>> lostListeners = new CopyOnWriteArrayList<>();

    private volatile @Nullable LockLostException lostCause;

    private volatile boolean released;

    /** An exclusive lock. */
    protected BackendLock(ResourceName resource, String requestId, long leaseId, long fencingToken) {
        this(resource, requestId, leaseId, fencingToken, LockKind.EXCLUSIVE);
    }

    protected BackendLock(ResourceName resource, String requestId, long leaseId, long fencingToken, LockKind kind) {
        this.resource = resource;
        this.requestId = requestId;
        this.leaseId = leaseId;
        this.fencingToken = fencingToken;
        this.kind = kind;
    }

    public final ResourceName resource() {
        return this.resource;
    }

    public final String requestId() {
        return this.requestId;
    }

    public final long leaseId() {
        return this.leaseId;
    }

    public final long fencingToken() {
        return this.fencingToken;
    }

    /** Exclusive, shared, or one permit of a semaphore. */
    public final LockKind kind() {
        return this.kind;
    }

    /**
     * {@link System#nanoTime()} up to which this process may assume it holds the lock. It must be
     * conservative: the store must not grant the lock to anyone else before it.
     */
    public abstract long validUntilNanos();

    /** Whether the lock is neither released nor lost and its validity has not run out. */
    public final boolean isValid() {
        return !this.released && this.lostCause == null && System.nanoTime() - validUntilNanos() < 0;
    }

    public final boolean isReleased() {
        return this.released;
    }

    public final boolean isLost() {
        return this.lostCause != null;
    }

    /** Why the lock was lost, or {@code null} while it was not. */
    public final @Nullable LockLostException lostCause() {
        return this.lostCause;
    }

    /** Registers a listener; it runs at once when the lock is already lost. */
    public final void onLost(Consumer<LockLostException> listener) {
        this.lostListeners.add(listener);
        LockLostException cause = this.lostCause;
        if (cause != null && this.lostListeners.remove(listener)) {
            notify(listener, cause);
        }
    }

    /**
     * Marks the lock lost and runs the listeners, once. Has no effect after a release.
     *
     * @return whether this call made the transition
     */
    public final boolean markLost(LockLostException cause) {
        synchronized (this) {
            if (this.released || this.lostCause != null) {
                return false;
            }
            this.lostCause = cause;
        }
        for (Consumer<LockLostException> listener : this.lostListeners) {
            if (this.lostListeners.remove(listener)) {
                notify(listener, cause);
            }
        }
        return true;
    }

    /**
     * Marks the lock released, once; a lost lock stays lost.
     *
     * @return whether this call made the transition
     */
    public final synchronized boolean markReleased() {
        if (this.released || this.lostCause != null) {
            return false;
        }
        this.released = true;
        this.lostListeners.clear();
        return true;
    }

    private void notify(Consumer<LockLostException> listener, LockLostException cause) {
        try {
            listener.accept(cause);
        } catch (RuntimeException ex) {
            logger.warn("Lock-lost listener for '{}' failed", this.resource, ex);
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[resource=" + this.resource + ", token=" + this.fencingToken + ", leaseId="
                + this.leaseId + "]";
    }
}
