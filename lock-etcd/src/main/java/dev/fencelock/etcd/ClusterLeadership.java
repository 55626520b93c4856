package dev.fencelock.etcd;

import dev.fencelock.spi.BackendEventListener;
import java.time.Duration;

/**
 * What this client can tell about etcd's leader from its own writes. Every answer carries the raft
 * term: a term larger than any seen before means the leader changed (at least once) in between.
 * A write that etcd refused for want of a leader ({@code no leader}, {@code leader changed}, {@code
 * request timed out}), or that got no answer at all, begins a stretch without a leader; the next
 * write that commits ends it. The stretch begins when that write was sent, but not before the last
 * commit was answered; a failure is ignored when a write sent after it committed already, since it
 * then says nothing about the cluster now. A member that is frozen looks the same from here: that is
 * what "as the client sees it" means.
 */
final class ClusterLeadership {

    private final BackendEventListener events;

    private long term;

    private boolean committedOnce;

    /** Send time of the latest-sent write that committed. */
    private long lastCommitSent;

    /** Answer time of the latest commit. */
    private long lastCommitAnswered;

    private boolean leaderless;

    private long leaderlessSince;

    ClusterLeadership(BackendEventListener events) {
        this.events = events;
    }

    /** A write sent at {@code sent} was answered at {@code answered} by a member in {@code raftTerm}. */
    void committed(long sent, long answered, long raftTerm) {
        long previousTerm;
        long ended = -1;
        synchronized (this) {
            if (!this.committedOnce || sent - this.lastCommitSent > 0) {
                this.lastCommitSent = sent;
            }
            if (!this.committedOnce || answered - this.lastCommitAnswered > 0) {
                this.lastCommitAnswered = answered;
            }
            this.committedOnce = true;
            if (this.leaderless) {
                this.leaderless = false;
                ended = Math.max(0, answered - this.leaderlessSince);
            }
            previousTerm = this.term;
            this.term = Math.max(this.term, raftTerm);
        }
        if (previousTerm != 0 && raftTerm > previousTerm) {
            this.events.leaderChanged(previousTerm, raftTerm);
        }
        if (ended >= 0) {
            this.events.leaderFound(Duration.ofNanos(ended));
        }
    }

    /** A write sent at {@code sent} failed at {@code failed}. */
    void failed(long sent, long failed, Throwable failure) {
        if (!EtcdFailures.isWithoutLeader(failure)) {
            return;
        }
        long since;
        synchronized (this) {
            if (this.leaderless || (this.committedOnce && this.lastCommitSent - sent > 0)) {
                return;
            }
            long start = (this.committedOnce && this.lastCommitAnswered - sent > 0) ? this.lastCommitAnswered : sent;
            this.leaderless = true;
            this.leaderlessSince = start;
            since = Math.max(0, failed - start);
        }
        this.events.leaderLost(Duration.ofNanos(since));
    }
}
