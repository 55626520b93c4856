package dev.fencelock;

/**
 * A lock this process held is no longer known to be held: its lease expired or could not be
 * confirmed in time, or its key was deleted. Work done under it must not be committed; a
 * fencing-aware store rejects it anyway.
 */
public class LockLostException extends LockException {

    private static final long serialVersionUID = 1L;

    public LockLostException(String message) {
        super(message);
    }

    public LockLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
