package dev.fencelock.verification.checker;

/**
 * A violation of what a fenced counter must guarantee.
 *
 * @param kind what was violated
 * @param key the counter concerned
 * @param operationId the operation that shows it
 * @param detail the evidence, in words
 */
public record Anomaly(Kind kind, String key, String operationId, String detail) {

    /** The checks, named after what their failure means. */
    public enum Kind {
        /** An acknowledged increment has no row in the history table. */
        LOST_ACKNOWLEDGED,
        /** One operation has more than one row. */
        APPLIED_TWICE,
        /** An operation reported as failed has a row. */
        FAILED_BUT_APPLIED,
        /** A row names an operation no worker invoked. */
        UNKNOWN_WRITE,
        /** A row disagrees with what its worker acknowledged (token, value read or written). */
        ACK_DIFFERS,
        /** A counter differs from the number of committed increments. */
        COUNTER_MISMATCH,
        /** A committed write did not read what the previous committed write of its key produced. */
        LOST_UPDATE,
        /** A committed write did not write what it read plus one. */
        BAD_INCREMENT,
        /** A committed write carried a smaller token than the one committed before it. */
        TOKEN_REGRESSION,
        /** By the workers' clocks alone, two committed critical sections of one key certainly overlapped. */
        INTERLEAVED,
        /**
         * A protected table refused a lock holder's write because it carried no fence (SQLSTATE {@code FL001}), or
         * carried it from a transaction nested in a fenced one ({@code FL003}): every write of this workload runs
         * under a lock, so its client failed to put the fence in the session. A correct holder was refused, which
         * the counters cannot show.
         */
        UNFENCED_WRITE,
        /**
         * Not the lock's failure but the campaign's: a force-release deleted nothing, or its deletion showed neither a
         * loss at the holder nor a grant to another operation while the holder still held, within one lease TTL of
         * its heal. The run did not test what its fault log says.
         */
        INJECTION_WITHOUT_EFFECT
    }
}
