package dev.fencelock;

/**
 * The lock store could not be reached, or has no quorum, within the time allowed. No lock was
 * granted; if a request may have been applied, its key is removed in the background.
 */
public class LockBackendUnavailableException extends LockException {

    private static final long serialVersionUID = 1L;

    public LockBackendUnavailableException(String message) {
        super(message);
    }

    public LockBackendUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
