package dev.fencelock;

/** Too many callers of this client already wait for the same resource; the attempt was refused before any write. */
public class LockQueueFullException extends LockException {

    private static final long serialVersionUID = 1L;

    public LockQueueFullException(String message) {
        super(message);
    }
}
