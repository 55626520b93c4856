package dev.fencelock;

/**
 * The store did not answer the write of an acquisition, so it cannot be known whether the write
 * was applied. No lock was granted; if the write was applied, the backend removes its key in the
 * background (and blocks a late copy of it), after keeping it for a while for a retry: acquiring
 * again with the same request id is safe and may find it. An unavailable store whose answers said
 * that nothing was written fails with {@link LockBackendUnavailableException} itself.
 */
public class LockOutcomeUnknownException extends LockBackendUnavailableException {

    private static final long serialVersionUID = 1L;

    public LockOutcomeUnknownException(String message, Throwable cause) {
        super(message, cause);
    }
}
