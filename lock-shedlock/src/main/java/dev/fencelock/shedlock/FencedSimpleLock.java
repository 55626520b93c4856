package dev.fencelock.shedlock;

import java.time.Instant;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock lock held through FenceLock: besides unlocking and extending, it tells the task
 * which fencing token its writes must carry.
 *
 * <p>Tasks run through ShedLock's executor (and so every {@code @SchedulerLock} method) rarely
 * need it: {@link FenceLockProvider} puts the fence on {@link dev.fencelock.FencingContext} of the
 * thread that locked, and FenceLock's JDBC guard reads it from there.
 */
public interface FencedSimpleLock extends SimpleLock {

    /** The FenceLock resource this lock holds: the provider's resource prefix and the lock's name. */
    String resource();

    /** The fencing token of this acquisition; the same for every lock an extension returns. */
    long fencingToken();

    /** When the lock ends even if its task still runs ({@code lockAtMostUntil} of its configuration). */
    Instant lockAtMostUntil();

    /** Whether the lock is held: not unlocked, not past {@link #lockAtMostUntil()}, not lost. */
    boolean isValid();
}
