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
        /**
         * This process, before any SQL was sent, because it knew its lease was lost or its token was
         * no fencing token.
         */
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
        resourceIfUnnamed(resource);
        this.resource = resource;
        this.token = token;
        this.acceptedToken = acceptedToken;
        this.refusedBy = refusedBy;
    }

    /**
     * The refusal of a token from a lock store whose tokens are not fencing tokens ({@link
     * LockLease#isFencing()} is false), by this process.
     *
     * @param refused what was refused, for the message ("refused the write before it reached the database")
     */
    public static FencingTokenRejectedException notFencing(String resource, long token, String refused) {
        String shown = (resource.length() > 60) ? resource.substring(0, 60) + "…" : resource;
        return new FencingTokenRejectedException(
                resource,
                token,
                "Lock on '" + shown + "' comes from a lock store whose token " + token + " is not a fencing token: "
                        + "after a failover to a replica that missed the last writes, Redis can grant the same lock, "
                        + "with the same token, to a second holder while the first still holds it, so no database "
                        + "can tell their writes apart; " + refused + ". Hold locks that guard writes on a fencing "
                        + "store (fencelock.backend=etcd); keep Redis locks for work that is wasted, never wrong, "
                        + "when done twice.",
                RefusedBy.CLIENT);
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
