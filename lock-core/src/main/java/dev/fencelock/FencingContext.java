package dev.fencelock;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The fencing tokens of the locks the current thread works under, innermost last.
 *
 * <p>{@code @DistributedLock} pushes a fence when it acquires and pops it in {@code finally};
 * programmatic users do the same through {@link #open(LockLease)}. Fencing-aware writers (the
 * JDBC guard, hand-written conditional updates) read it to put the token into the write, so the
 * store can refuse writes from a holder that has been replaced.
 */
public final class FencingContext {

    /**
     * The key under which the fences travel where no thread-local can follow them: in a Reactor
     * {@code Context} (a {@code List<Fence>}, outermost first, as {@link #all()} returns it) and in
     * Micrometer's context propagation.
     */
    public static final String CONTEXT_KEY = "dev.fencelock.fencing-context";

    private static final ThreadLocal<Deque<Fence>> FENCES = new ThreadLocal<>();

    private FencingContext() {}

    /**
     * One lock's fence: the resource and the token to present to the store.
     *
     * @param resource the locked resource
     * @param token its fencing token
     * @param lease the lease that carries it, when known, so writers can refuse locally once it
     *     is lost
     * @param fencing whether the token is a fencing token ({@link LockLease#isFencing()}); writers
     *     that present tokens to a database refuse a fence without one
     */
    public record Fence(
            String resource, long token, @Nullable LockLease lease, boolean fencing) {

        /** A fence whose token fences as far as its lease says; without a lease, the caller vouches for it. */
        public Fence(String resource, long token, @Nullable LockLease lease) {
            this(resource, token, lease, lease == null || lease.isFencing());
        }

        /** Whether the lock behind this fence is not known to be lost or released. */
        public boolean isValid() {
            return this.lease == null || this.lease.isValid();
        }

        /**
         * Whether this token fences writes: its lock is exclusive (or the fence was pushed without a
         * lease). Readers of a shared lock and holders of a semaphore's permits hold together, so no
         * token of theirs says which of them may write.
         */
        public boolean fencesWrites() {
            return this.lease == null || this.lease.isExclusive();
        }
    }

    /** A pushed fence; closing it pops it again. */
    public interface Scope extends AutoCloseable {

        Fence fence();

        @Override
        void close();
    }

    /** Pushes the fence of {@code lease} for the current thread until the returned scope is closed. */
    public static Scope open(LockLease lease) {
        return push(new Fence(lease.resource(), lease.fencingToken(), lease));
    }

    /**
     * Pushes one fence per lock of {@code leases}, in the order they were taken, until the returned
     * scope is closed; its {@link Scope#fence()} is the last one.
     */
    public static Scope openAll(MultiLockLease leases) {
        List<Scope> scopes = new ArrayList<>(leases.leases().size());
        for (LockLease lease : leases.leases()) {
            scopes.add(open(lease));
        }
        return new Scope() {
            @Override
            public Fence fence() {
                return scopes.get(scopes.size() - 1).fence();
            }

            @Override
            public void close() {
                for (int i = scopes.size() - 1; i >= 0; i--) {
                    scopes.get(i).close();
                }
            }
        };
    }

    /** Pushes {@code fence} for the current thread until the returned scope is closed. */
    public static Scope push(Fence fence) {
        Deque<Fence> fences = FENCES.get();
        if (fences == null) {
            fences = new ArrayDeque<>(2);
            FENCES.set(fences);
        }
        fences.addLast(fence);
        return new Scope() {
            private boolean closed;

            @Override
            public Fence fence() {
                return fence;
            }

            @Override
            public void close() {
                if (!this.closed) {
                    this.closed = true;
                    remove(fence);
                }
            }
        };
    }

    private static void remove(Fence fence) {
        Deque<Fence> fences = FENCES.get();
        if (fences != null) {
            fences.removeLastOccurrence(fence);
            if (fences.isEmpty()) {
                FENCES.remove();
            }
        }
    }

    /** The innermost fence of the current thread. */
    public static Optional<Fence> current() {
        Deque<Fence> fences = FENCES.get();
        return (fences != null) ? Optional.ofNullable(fences.peekLast()) : Optional.empty();
    }

    /**
     * The innermost fence of the current thread whose token fences writes ({@link
     * Fence#fencesWrites()}): a shared lock or a permit taken inside an exclusive lock does not lend
     * its token to the exclusive lock's writes.
     */
    public static Optional<Fence> writeFence() {
        List<Fence> fences = all();
        for (int i = fences.size() - 1; i >= 0; i--) {
            if (fences.get(i).fencesWrites()) {
                return Optional.of(fences.get(i));
            }
        }
        return Optional.empty();
    }

    /** All fences of the current thread, outermost first. */
    public static List<Fence> all() {
        Deque<Fence> fences = FENCES.get();
        return (fences != null) ? Collections.unmodifiableList(new ArrayList<>(fences)) : List.of();
    }

    /** The current token for {@code resource}, if the thread works under a lock of it. */
    public static Optional<Fence> forResource(String resource) {
        List<Fence> fences = all();
        for (int i = fences.size() - 1; i >= 0; i--) {
            if (fences.get(i).resource().equals(resource)) {
                return Optional.of(fences.get(i));
            }
        }
        return Optional.empty();
    }

    /**
     * Sets the current thread's fences to {@code fences} (outermost first), replacing what was
     * there; an empty list clears them. For context-propagation libraries, which capture {@link
     * #all()} on one thread and set it on another; code of its own uses {@link #open} or {@link
     * #restore}, which undo what they did.
     */
    public static void setAll(List<Fence> fences) {
        if (fences.isEmpty()) {
            FENCES.remove();
        } else {
            FENCES.set(new ArrayDeque<>(fences));
        }
    }

    /**
     * Replaces the current thread's fences with {@code fences}, for handing the context to
     * another thread; returns a scope that restores what was there.
     */
    public static Scope restore(List<Fence> fences) {
        Deque<Fence> previous = FENCES.get();
        FENCES.set(new ArrayDeque<>(fences));
        Fence top = fences.isEmpty() ? new Fence("", 0, null) : fences.get(fences.size() - 1);
        return new Scope() {
            @Override
            public Fence fence() {
                return top;
            }

            @Override
            public void close() {
                if (previous == null) {
                    FENCES.remove();
                } else {
                    FENCES.set(previous);
                }
            }
        };
    }
}
