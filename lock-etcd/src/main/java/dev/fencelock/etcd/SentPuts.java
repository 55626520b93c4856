package dev.fencelock.etcd;

import org.jspecify.annotations.Nullable;

/**
 * What one acquisition knows of the outcome of the puts it sent: whether the last one is still
 * unanswered, and whether any send went unanswered before another was sent, which leaves that
 * send's outcome unknown for good (it may still be applied).
 */
final class SentPuts {

    /** Whether a put was submitted whose outcome is not known. */
    private volatile boolean unanswered;

    /** Whether an earlier send of the put went unanswered: its outcome stays unknown for good. */
    private volatile boolean earlierUnanswered;

    /** The put submitted last, which may still be withdrawn if it was never sent. */
    private volatile PutBatch.@Nullable PutRequest last;

    /** A put is sent: a send before it that was not answered may have been applied. */
    void sending(PutBatch.PutRequest request) {
        if (this.unanswered) {
            this.earlierUnanswered = true; // sent again after no answer, or after a broken connection
        }
        this.unanswered = true;
        this.last = request;
    }

    /** The last put was answered, or is known to have written nothing. */
    void settled() {
        this.unanswered = false;
    }

    /** The last put was refused for good: it wrote nothing, but an earlier unanswered send may have. */
    void refused() {
        this.unanswered = this.earlierUnanswered;
    }

    /** Whether the last put sent has not been answered. */
    boolean lastUnanswered() {
        return this.unanswered;
    }

    /** Whether a send went unanswered before another was sent. */
    boolean earlierUnanswered() {
        return this.earlierUnanswered;
    }

    /**
     * Whether a put may have been applied without an answer: one was sent that was never answered,
     * even if a later one was refused. Withdraws a put still queued, which then never goes.
     */
    boolean mayHaveWritten() {
        PutBatch.PutRequest request = this.last;
        return this.earlierUnanswered || (this.unanswered && !(request != null && request.withdraw()));
    }
}
