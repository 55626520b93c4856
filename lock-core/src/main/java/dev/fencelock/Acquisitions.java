package dev.fencelock;

import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockKind;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The acquisitions of one client by resource and request id: what lets the same request id
 * re-enter a lock without a store call, and what the client lists as held.
 */
final class Acquisitions {

    private final ConcurrentHashMap<String, Acquisition> byKey = new ConcurrentHashMap<>();

    /**
     * The still valid acquisition of {@code requestId} on {@code resource} with one hold more, if
     * there is one. An exclusive hold covers a shared request (a writer may call a reader); any
     * other difference of kind is refused, so a reader cannot upgrade itself to a writer.
     *
     * @throws LockException when the acquisition holds a kind that does not cover {@code kind}
     */
    @Nullable
    Acquisition reenter(ResourceName resource, String requestId, LockKind kind) {
        Acquisition existing = this.byKey.get(key(resource, requestId));
        if (existing == null || !existing.lock().isValid()) {
            return null;
        }
        LockKind held = existing.lock().kind();
        if (!held.equals(kind) && !(held.isExclusive() && kind.equals(LockKind.SHARED))) {
            throw new LockException("Request id '" + requestId + "' holds lock '" + resource + "' as " + held.describe()
                    + " and cannot re-enter it as " + kind.describe()
                    + (held.equals(LockKind.SHARED)
                            ? "; a reader cannot upgrade to a writer (it would wait for itself): release the read"
                                    + " lock first, or take the write lock from the start"
                            : "; re-enter with the kind it was acquired with"));
        }
        return existing.addHold() ? existing : null;
    }

    /**
     * The acquisition of a lock the backend granted, with one hold more: the known one, or a new one.
     * {@code null} when the lock is one whose release has begun (its last hold was dropped, or the
     * backend was told to release it): that release ends it, so nobody may hold it again.
     */
    @Nullable
    Acquisition register(BackendLock lock, String lockName) {
        Acquisition[] registered = {null};
        this.byKey.compute(key(lock.resource(), lock.requestId()), (k, current) -> {
            if (current != null && current.lock() == lock) {
                registered[0] = current;
            } else if (!lock.isReleased()) {
                registered[0] = new Acquisition(lock, lockName);
            }
            return (registered[0] != null) ? registered[0] : current;
        });
        // A known acquisition refuses the hold once emptied; its entry stays until forgetReleased.
        return (registered[0] != null && registered[0].addHold()) ? registered[0] : null;
    }

    /**
     * Drops one hold of {@code acquisition}; returns {@code true} after the last one. The emptied
     * acquisition stays known until {@link #forgetReleased}, so that no acquisition of its
     * request id takes its lock meanwhile.
     */
    boolean dropHold(Acquisition acquisition) {
        return acquisition.dropHold();
    }

    /** Forgets the emptied {@code acquisition} once the backend was told to release its lock. */
    void forgetReleased(Acquisition acquisition) {
        BackendLock lock = acquisition.lock();
        this.byKey.remove(key(lock.resource(), lock.requestId()), acquisition);
        acquisition.releaseHandedOver().complete(null);
    }

    /** Completes once the release of {@code lock}, which {@link #register} refused, was handed to the backend. */
    CompletableFuture<Void> releaseHandedOver(BackendLock lock) {
        Acquisition current = this.byKey.get(key(lock.resource(), lock.requestId()));
        return (current != null && current.lock() == lock)
                ? current.releaseHandedOver()
                : CompletableFuture.completedFuture(null);
    }

    /** The acquisitions whose lock is still valid, as operators see them. */
    List<LockClient.HeldLock> held() {
        List<LockClient.HeldLock> held = new ArrayList<>();
        for (Acquisition acquisition : this.byKey.values()) {
            BackendLock lock = acquisition.lock();
            if (lock.isValid() && !acquisition.isEmptied()) {
                held.add(new LockClient.HeldLock(
                        lock.resource().value(),
                        lock.requestId(),
                        lock.leaseId(),
                        lock.fencingToken(),
                        acquisition.acquiredAt(),
                        LockClient.toInstant(lock.validUntilNanos()),
                        acquisition.holds(),
                        acquisition.lockName(),
                        lock.kind().mode(),
                        lock.kind().permits()));
            }
        }
        return held;
    }

    /** Number of acquisitions whose lock is still valid. */
    int heldCount() {
        int count = 0;
        for (Acquisition acquisition : this.byKey.values()) {
            if (acquisition.lock().isValid() && !acquisition.isEmptied()) {
                count++;
            }
        }
        return count;
    }

    void clear() {
        this.byKey.clear();
    }

    private static String key(ResourceName resource, String requestId) {
        // Resource names cannot contain control characters, so the separator is unambiguous.
        return resource.value() + '\u0000' + requestId;
    }
}
