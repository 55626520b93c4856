package dev.fencelock.interceptor;

import dev.fencelock.LockLease;
import org.jspecify.annotations.Nullable;

/**
 * Watches the two phases of each {@code @DistributedLock} call as they happen: the acquisition (the
 * wait) and the held section. {@link DistributedLockInterceptor} calls it on the method's thread at
 * the start and end of each phase, which a {@link dev.fencelock.LockEventListener} cannot see (its
 * events come once an acquisition is complete, on the backend's threads). The starter implements it
 * with Micrometer's Observation API when an {@code ObservationRegistry} bean exists.
 */
public interface LockCallObserver {

    /** Observes nothing. */
    LockCallObserver NONE = (lockName, resource) -> Acquiring.NONE;

    /**
     * A call starts waiting for its lock.
     *
     * @param lockName the key template or name of the lock, never the resolved key
     * @param resource the resolved resource; a call that takes several locks gives them all,
     *     comma-separated
     */
    Acquiring acquiring(String lockName, String resource);

    /**
     * A call of a method that returns a {@code Mono} or {@code Flux} starts waiting for its lock, on
     * subscription. Its phases begin and end on whichever threads the publisher signals on, so
     * nothing may be put in scope on a thread. The default observes nothing.
     *
     * @see #acquiring(String, String)
     */
    default Acquiring acquiringDetached(String lockName, String resource) {
        return Acquiring.NONE;
    }

    /** The acquisition of one call. */
    interface Acquiring {

        /** Observes nothing. */
        Acquiring NONE = new Acquiring() {
            @Override
            public Holding acquired(LockLease lease, boolean reentered) {
                return Holding.NONE;
            }

            @Override
            public void failed(Throwable cause) {}
        };

        /**
         * The lock is held; the method runs next. {@code reentered}: an enclosing call held it (all of
         * them) already. A call that takes several locks gives the first one taken.
         */
        Holding acquired(LockLease lease, boolean reentered);

        /** The call did not get the lock (it fails, or is skipped by its policy). */
        void failed(Throwable cause);
    }

    /** The held section of one call. */
    interface Holding {

        /** Observes nothing. */
        Holding NONE = new Holding() {
            @Override
            public void returned() {}

            @Override
            public void released(@Nullable Throwable failure) {}
        };

        /**
         * The method returned or threw, on the thread that acquired the lock (for a {@code Mono} or
         * {@code Flux}: the method returned its publisher, which runs next).
         */
        void returned();

        /**
         * The lock was given up, possibly on another thread (a returned stage completed); {@code
         * failure} is what the caller gets, or {@code null}.
         */
        void released(@Nullable Throwable failure);
    }
}
