package dev.fencelock.spi;

import dev.fencelock.LockMode;
import org.jspecify.annotations.Nullable;

/**
 * The rule that decides who holds a resource, applied to its queue oldest key first. Every backend
 * uses it, so they agree on who holds:
 *
 * <ul>
 *   <li>an exclusive key holds when no key is ahead of it;
 *   <li>a shared key holds when only shared keys are ahead of it (readers wait for the writers
 *       that came before them, and only for those);
 *   <li>a key of a semaphore of {@code n} permits holds when fewer than {@code n} keys are ahead
 *       of it;
 *   <li>a key with a key of another number of permits ahead of it {@linkplain Standing#CONFLICTS
 *       conflicts}: its acquisition is refused.
 * </ul>
 *
 * <p>Keys are only ever added behind the existing ones, so what is ahead of a key only shrinks,
 * and a key that holds keeps holding until it is deleted. Two holders at once are always
 * compatible: the newer one had the older one ahead of it when it was granted.
 */
public final class QueueWalk {

    /** Where a key stands. */
    public enum Standing {
        /** The key holds the lock. */
        HOLDS,
        /** The key waits for keys ahead of it. */
        WAITS,
        /** A key ahead of it has another number of permits: the acquisition must be refused. */
        CONFLICTS
    }

    private int ahead;

    private int exclusiveAhead;

    private @Nullable LockKind first;

    /** A kind ahead that is not compatible with {@link #first}, if one was seen. */
    private @Nullable LockKind otherThanFirst;

    /** The standing of a key of {@code kind} behind {@code ahead} (oldest first), which need not be all keys ahead. */
    public static Standing standing(LockKind kind, Iterable<LockKind> ahead) {
        QueueWalk walk = new QueueWalk();
        ahead.forEach(walk::add);
        return walk.standingOf(kind);
    }

    /** The standing of the next key, of {@code kind}, then counts it as ahead of the keys after it. */
    public Standing next(LockKind kind) {
        Standing standing = standingOf(kind);
        add(kind);
        return standing;
    }

    /** The standing a key of {@code kind} would have behind the keys walked so far. */
    public Standing standingOf(LockKind kind) {
        if (conflictingAhead(kind) != null) {
            return Standing.CONFLICTS;
        }
        boolean holds = switch (kind.mode()) {
            case SHARED -> this.exclusiveAhead == 0;
            case EXCLUSIVE -> this.ahead < kind.permits();
        };
        return holds ? Standing.HOLDS : Standing.WAITS;
    }

    /** A kind ahead that {@code kind} is not compatible with, for the refusal's message. */
    public @Nullable LockKind conflictingAhead(LockKind kind) {
        if (this.first != null && !this.first.compatibleWith(kind)) {
            return this.first;
        }
        if (this.otherThanFirst != null && !this.otherThanFirst.compatibleWith(kind)) {
            return this.otherThanFirst;
        }
        return null;
    }

    private void add(LockKind kind) {
        this.ahead++;
        if (kind.mode() == LockMode.EXCLUSIVE) {
            this.exclusiveAhead++;
        }
        if (this.first == null) {
            this.first = kind;
        } else if (this.otherThanFirst == null && !this.first.compatibleWith(kind)) {
            this.otherThanFirst = kind;
        }
    }

    /** The message of a refused acquisition of {@code resource} as {@code kind}, behind {@code conflicting}. */
    public static String conflictMessage(String resource, LockKind kind, LockKind conflicting) {
        return "Lock '" + resource + "' is in use as " + conflicting.describe() + ", but this request asks for "
                + kind.describe() + "; every client must lock a resource with the same number of permits."
                + " The request was refused and left no key.";
    }
}
