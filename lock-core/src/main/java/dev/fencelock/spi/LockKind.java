package dev.fencelock.spi;

import dev.fencelock.LockMode;

/**
 * What one key in a resource's queue asks for: an exclusive lock, a shared (read) lock, or one of
 * {@code permits} permits of a semaphore. Keys of one resource must agree on {@code permits}
 * ({@link #compatibleWith}); exclusive and shared keys both count as one permit, so read-write
 * locks mix, and a semaphore mixes only with semaphores of the same size.
 *
 * @param mode exclusive or shared; a semaphore's keys are exclusive among themselves
 * @param permits how many holders may hold at once; 1 for exclusive and shared locks
 */
public record LockKind(LockMode mode, int permits) {

    /** One holder at a time. */
    public static final LockKind EXCLUSIVE = new LockKind(LockMode.EXCLUSIVE, 1);

    /** Readers together, behind every writer that came before them. */
    public static final LockKind SHARED = new LockKind(LockMode.SHARED, 1);

    public LockKind {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1, was " + permits);
        }
        if (mode == LockMode.SHARED && permits != 1) {
            throw new IllegalArgumentException(
                    "A semaphore of " + permits + " permits has no shared mode; use EXCLUSIVE with permits");
        }
    }

    /** A semaphore of {@code permits} permits; one permit is an exclusive lock. */
    public static LockKind permits(int permits) {
        return (permits == 1) ? EXCLUSIVE : new LockKind(LockMode.EXCLUSIVE, permits);
    }

    /** Whether this is a semaphore of more than one permit. */
    public boolean isSemaphore() {
        return this.permits > 1;
    }

    /** Whether a holder of this kind keeps every other holder out, so that its token fences writes. */
    public boolean isExclusive() {
        return this.mode == LockMode.EXCLUSIVE && this.permits == 1;
    }

    /** Whether keys of both kinds may stand in one queue: the same number of permits. */
    public boolean compatibleWith(LockKind other) {
        return this.permits == other.permits;
    }

    /** "an exclusive lock", "a shared lock", "a semaphore of 5 permits": for messages. */
    public String describe() {
        if (isSemaphore()) {
            return "a semaphore of " + this.permits + " permits";
        }
        return (this.mode == LockMode.SHARED) ? "a shared lock" : "an exclusive lock";
    }
}
