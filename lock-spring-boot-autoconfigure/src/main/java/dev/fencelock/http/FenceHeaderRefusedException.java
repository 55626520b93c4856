package dev.fencelock.http;

/** A fence header that cannot be trusted or read, with the reason and what was wrong. */
public class FenceHeaderRefusedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final FenceRefusalReason reason;

    public FenceHeaderRefusedException(FenceRefusalReason reason, String message) {
        super(message);
        this.reason = reason;
    }

    /** Why the header was refused. */
    public FenceRefusalReason reason() {
        return this.reason;
    }
}
