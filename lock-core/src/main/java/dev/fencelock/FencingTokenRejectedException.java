package dev.fencelock;

import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * A protected store refused a write because a newer lock holder (with a larger fencing token)
 * has already written to the same resource. The writer's lock was lost; its transaction must
 * roll back.
 */
public class FencingTokenRejectedException extends LockException {

    private static final long serialVersionUID = 1L;

    /** Who refused the write. */
    public enum RefusedBy {
        /** This process, before any SQL was sent, because it knew its lease was lost. */
        CLIENT,
        /** The database, at the fence table: the client's check found a newer token there. */
        FENCE_TABLE,
        /** The database, at a protected table: its trigger found a newer token in the fence table. */
        PROTECTED_TABLE,
        /** The database, at the row: a row-fenced update matched no row (a newer token, or no row). */
        ROW
    }

    private final String resource;

    private final long token;

    private final RefusedBy refusedBy;

    private final @Nullable Long acceptedToken;

    /** A refusal by the fence table in the database. */
    public FencingTokenRejectedException(String resource, long token, String message) {
        this(resource, token, message, RefusedBy.FENCE_TABLE);
    }

    public FencingTokenRejectedException(String resource, long token, String message, RefusedBy refusedBy) {
        this(resource, token, null, message, refusedBy);
    }

    /**
     * A refusal that knows the token the store had already accepted for the resource, so that a
     * caller (an HTTP problem detail, say) can name both tokens without reading the message.
     */
    public FencingTokenRejectedException(
            String resource, long token, @Nullable Long acceptedToken, String message, RefusedBy refusedBy) {
        super(message);
        this.resource = resource;
        this.token = token;
        this.acceptedToken = acceptedToken;
        this.refusedBy = refusedBy;
    }

    /** Who refused the write: this process, or the database at the fence table, a protected table or the row. */
    public RefusedBy refusedBy() {
        return this.refusedBy;
    }

    /** The fenced resource whose write was refused. */
    public String getResource() {
        return this.resource;
    }

    /** The stale token the refused write carried. */
    public long getToken() {
        return this.token;
    }

    /**
     * The newer token the store had already accepted for the resource, when the refusal reports
     * it (the fence table's check does; a refusal by this process or by a row does not).
     */
    public OptionalLong getAcceptedToken() {
        return (this.acceptedToken != null) ? OptionalLong.of(this.acceptedToken) : OptionalLong.empty();
    }
}
