package dev.fencelock;

/**
 * Base of every exception FenceLock throws. Unchecked, because a caller of a locked method
 * can rarely recover locally: the useful reaction (retry later, answer 409/423/503) is
 * decided at the edge of the application.
 */
public class LockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public LockException(String message) {
        super(message);
    }

    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
