package dev.fencelock;

/**
 * A protected store refused a write because a newer lock holder (with a larger fencing token)
 * has already written to the same resource. The writer's lock was lost; its transaction must
 * roll back.
 */
public class FencingTokenRejectedException extends LockException {

    private static final long serialVersionUID = 1L;

    private final String resource;

    private final long token;

    public FencingTokenRejectedException(String resource, long token, String message) {
        super(message);
        this.resource = resource;
        this.token = token;
    }

    /** The fenced resource whose write was refused. */
    public String getResource() {
        return this.resource;
    }

    /** The stale token the refused write carried. */
    public long getToken() {
        return this.token;
    }
}
