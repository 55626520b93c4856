package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.spi.BackendEventListener;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the client concludes about etcd's leader from its writes' answers and failures. */
class ClusterLeadershipTest {

    private static final long MS = 1_000_000L;

    private final List<String> events = new ArrayList<>();

    private final ClusterLeadership leadership = new ClusterLeadership(new BackendEventListener() {
        @Override
        public void leaderChanged(long previousTerm, long term) {
            ClusterLeadershipTest.this.events.add("changed " + previousTerm + "->" + term);
        }

        @Override
        public void leaderLost(Duration since) {
            ClusterLeadershipTest.this.events.add("lost " + since.toMillis() + "ms ago");
        }

        @Override
        public void leaderFound(Duration withoutLeader) {
            ClusterLeadershipTest.this.events.add("found after " + withoutLeader.toMillis() + "ms");
        }
    });

    @Test
    void aLargerTermThanAnySeenIsALeaderChangeAndTheFirstIsNone() {
        this.leadership.committed(0, 1 * MS, 4);
        this.leadership.committed(2 * MS, 3 * MS, 4);
        this.leadership.committed(4 * MS, 5 * MS, 6);
        // A member that has not heard of the new term yet answers with the old one: no change.
        this.leadership.committed(6 * MS, 7 * MS, 5);

        assertThat(this.events).containsExactly("changed 4->6");
    }

    @Test
    void aWriteWithoutAnswerBeginsAStretchWithoutLeaderThatTheNextCommitEnds() {
        this.leadership.committed(0, 10 * MS, 2);
        this.leadership.failed(100 * MS, 400 * MS, noAnswer());
        this.leadership.failed(150 * MS, 450 * MS, etcd("etcdserver: no leader"));
        this.leadership.committed(500 * MS, 1_600 * MS, 3);

        assertThat(this.events).containsExactly("lost 300ms ago", "changed 2->3", "found after 1500ms");
    }

    @Test
    void theStretchBeginsNoEarlierThanTheLastCommitWasAnswered() {
        this.leadership.committed(0, 200 * MS, 2);
        this.leadership.failed(100 * MS, 400 * MS, etcd("etcdserver: request timed out"));
        this.leadership.committed(500 * MS, 700 * MS, 3);

        assertThat(this.events).containsExactly("lost 200ms ago", "changed 2->3", "found after 500ms");
    }

    @Test
    void aFailureIsIgnoredWhenAWriteSentAfterItHasCommitted() {
        this.leadership.committed(200 * MS, 210 * MS, 2);
        this.leadership.failed(100 * MS, 400 * MS, noAnswer());

        assertThat(this.events).isEmpty();
    }

    @Test
    void aConnectionFailureOrAnOverloadIsNoSignOfAMissingLeader() {
        this.leadership.failed(
                0, 10 * MS, Status.UNAVAILABLE.withDescription("io exception").asRuntimeException());
        this.leadership.failed(
                0,
                10 * MS,
                Status.RESOURCE_EXHAUSTED
                        .withDescription("etcdserver: too many requests")
                        .asRuntimeException());
        this.leadership.committed(20 * MS, 30 * MS, 2);

        assertThat(this.events).isEmpty();
    }

    private static Throwable noAnswer() {
        return new EtcdFailures.NoAnswerException("etcd did not answer within 300 ms");
    }

    private static Throwable etcd(String reason) {
        return Status.UNAVAILABLE.withDescription(reason).asRuntimeException();
    }
}
