package dev.fencelock;

/**
 * An acquisition met keys of the same resource that were taken with a different number of
 * permits: a semaphore of {@code n} permits next to one of {@code m}, or next to an exclusive or
 * shared lock (one permit). Every client must lock a resource the same way, or none of them can
 * count holders correctly; the attempt was refused and left no key behind.
 */
public class LockPermitsMismatchException extends LockException {

    private static final long serialVersionUID = 1L;

    public LockPermitsMismatchException(String message) {
        super(message);
    }
}
