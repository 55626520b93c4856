package dev.fencelock;

/**
 * The lock store refused this client: its credentials were not accepted, it may not touch the keys
 * of its namespace, or the store turned down its certificate. Unlike {@link
 * LockBackendUnavailableException} this is not temporary: trying again sends the same credentials
 * to the same store and is refused the same way, so callers should not retry it. The configuration
 * or the store's roles have to change; nothing was granted.
 */
public class LockStoreAccessDeniedException extends LockException {

    private static final long serialVersionUID = 1L;

    public LockStoreAccessDeniedException(String message) {
        super(message);
    }

    public LockStoreAccessDeniedException(String message, Throwable cause) {
        super(message, cause);
    }
}
