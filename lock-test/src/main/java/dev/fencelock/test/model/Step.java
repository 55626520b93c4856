package dev.fencelock.test.model;

import java.time.Duration;
import java.util.List;

/**
 * One command of a generated script, printed as one line of it ({@code c1 acquire r0 id=a1},
 * {@code fault drop-txn-response c2}). Clients, resources and request ids come from small pools,
 * so scripts collide on them: an id used again by its client is a retry, by another client a
 * conflict.
 *
 * @param kind what to do
 * @param client which client does it (0-based; printed from {@code c1})
 * @param resource which resource (printed {@code r0}, {@code r1})
 * @param idSlot which request id of the pool ({@code a0} …), for {@link Kind#ACQUIRE_WITH_ID}
 * @param argument the member to restart, or which fault duration, where the kind takes one
 */
record Step(Kind kind, int client, int resource, int idSlot, int argument) {

    /** How long a paused leader stays frozen: shorter than an election, and longer. */
    static final List<Duration> PAUSES = List.of(Duration.ofMillis(300), Duration.ofMillis(1200));

    enum Kind {
        ACQUIRE,
        ACQUIRE_WITH_ID,
        RENEW,
        RELEASE,
        RELEASE_ASYNC,
        /** Cancels the client's newest waiting acquisition of the resource. */
        CANCEL,
        FORCE_RELEASE,
        /** Stops the client's keep-alives until its session lease ran out, then lets them go again. */
        EXPIRE,
        /** The next Txn answers of the client are lost after etcd applied the Txn. */
        DROP_TXN_RESPONSE,
        /** Freezes the etcd leader with SIGSTOP for a while. */
        PAUSE_LEADER,
        /** Stops one etcd member and starts it again on its data. */
        RESTART_MEMBER;

        boolean isFault() {
            return this == DROP_TXN_RESPONSE || this == PAUSE_LEADER || this == RESTART_MEMBER;
        }

        boolean isClusterFault() {
            return this == PAUSE_LEADER || this == RESTART_MEMBER;
        }
    }

    /** The same step by {@code client} on {@code resource} ({@code r1}): how a step that acted on another lease is printed. */
    Step as(int client, String resource) {
        return new Step(this.kind, client, Integer.parseInt(resource.substring(1)), this.idSlot, this.argument);
    }

    String resourceName() {
        return "r" + this.resource;
    }

    String requestId() {
        return "a" + this.idSlot;
    }

    Duration pause() {
        return PAUSES.get(this.argument % PAUSES.size());
    }

    @Override
    public String toString() {
        String c = "c" + (this.client + 1);
        return switch (this.kind) {
            case ACQUIRE -> c + " acquire " + resourceName();
            case ACQUIRE_WITH_ID -> c + " acquire " + resourceName() + " id=" + requestId();
            case RENEW -> c + " renew " + resourceName();
            case RELEASE -> c + " release " + resourceName();
            case RELEASE_ASYNC -> c + " releaseAsync " + resourceName();
            case CANCEL -> c + " cancel " + resourceName();
            case FORCE_RELEASE -> c + " forceRelease " + resourceName();
            case EXPIRE -> c + " expire";
            case DROP_TXN_RESPONSE -> "fault drop-txn-response " + c;
            case PAUSE_LEADER -> "fault pause-leader " + pause().toMillis() + "ms";
            case RESTART_MEMBER -> "fault restart m" + (this.argument + 1);
        };
    }
}
