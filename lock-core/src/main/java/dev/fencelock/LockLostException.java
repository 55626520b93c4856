package dev.fencelock;

import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * A lock this process held is no longer known to be held: its lease expired or could not be
 * confirmed in time, or its key was deleted. Work done under it must not be committed; a
 * fencing-aware store rejects it anyway.
 */
public class LockLostException extends LockException {

    private static final long serialVersionUID = 1L;

    private final long fencingToken;

    private final boolean tokenKnown;

    public LockLostException(String message) {
        super(message);
        this.fencingToken = 0;
        this.tokenKnown = false;
    }

    public LockLostException(String message, Throwable cause) {
        super(message, cause);
        this.fencingToken = 0;
        this.tokenKnown = false;
    }

    /**
     * A loss of the lock of {@code resource} that was held with {@code fencingToken}.
     *
     * @param cause why it was lost, or {@code null}
     */
    public LockLostException(String message, String resource, long fencingToken, @Nullable Throwable cause) {
        super(message);
        if (cause != null) {
            initCause(cause);
        }
        resourceIfUnnamed(resource);
        this.fencingToken = fencingToken;
        this.tokenKnown = true;
    }

    /** The fencing token of the lost lock, when the code that threw said it. */
    public OptionalLong fencingToken() {
        return this.tokenKnown ? OptionalLong.of(this.fencingToken) : OptionalLong.empty();
    }
}
