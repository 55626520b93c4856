package dev.fencelock;

/** A resource name (or the expression that produced it) is not a valid lock key; nothing was written. */
public class InvalidLockKeyException extends LockException {

    private static final long serialVersionUID = 1L;

    public InvalidLockKeyException(String message) {
        super(message);
    }

    public InvalidLockKeyException(String message, Throwable cause) {
        super(message, cause);
    }
}
