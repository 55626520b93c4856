package dev.fencelock.http;

/**
 * Why an endpoint that takes its caller's fence refused a request before it ran: the tag of the
 * {@code fencelock.http.fence.refused} counter and the {@code reason} of the problem detail.
 */
public enum FenceRefusalReason {

    /** No fence header on an endpoint that requires one: 428 Precondition Required. */
    MISSING("missing", 428),

    /** A header that cannot be read (or more than one): 400. */
    MALFORMED("malformed", 400),

    /** A header without a signature where trust comes from signatures: anyone could have written it. 403. */
    UNSIGNED("unsigned", 403),

    /**
     * An unsigned header where trust comes from mutual TLS, from a caller without a verified client
     * certificate or with one whose subject is not trusted. 403.
     */
    UNTRUSTED_CALLER("untrusted-caller", 403),

    /** Signed with a key id this service does not have (never had, or already removed). 403. */
    UNKNOWN_KEY("unknown-key", 403),

    /** The signature does not match the header: forged, or altered on the way. 403. */
    FORGED("forged", 403),

    /** Correctly signed, but past its expiry (plus the allowed clock skew): a replay. 403. */
    EXPIRED("expired", 403),

    /** The fences come from a lock store whose scope this service does not compare tokens of. 403. */
    SCOPE("scope", 403);

    private final String tag;

    private final int status;

    FenceRefusalReason(String tag, int status) {
        this.tag = tag;
        this.status = status;
    }

    /** The reason as the counter's tag and the problem detail spell it. */
    public String tag() {
        return this.tag;
    }

    /** The HTTP status the refusal is answered with. */
    public int status() {
        return this.status;
    }
}
