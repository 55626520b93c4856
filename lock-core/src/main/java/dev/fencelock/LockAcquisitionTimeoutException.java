package dev.fencelock;

/** The lock stayed held by someone else for the whole wait timeout; nothing of this attempt is left in the store. */
public class LockAcquisitionTimeoutException extends LockException {

    private static final long serialVersionUID = 1L;

    public LockAcquisitionTimeoutException(String message) {
        super(message);
    }
}
