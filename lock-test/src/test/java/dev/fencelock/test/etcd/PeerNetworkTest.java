package dev.fencelock.test.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PeerNetworkTest {

    @RegisterExtension
    static final EtcdClusterExtension etcd =
            EtcdClusterExtension.of(EtcdCluster.builder().members(3).peerNetwork());

    /** A give-up time: an election takes 1-2 s, more on a loaded machine. */
    private static final Duration LIMIT = Duration.ofSeconds(30);

    @AfterEach
    void heal() {
        etcd.cluster().peerNetwork().heal();
        etcd.cluster().members().forEach(member -> member.awaitHealthy(LIMIT));
    }

    @Test
    void anIsolatedLeaderLosesItsTermAndTheOtherTwoCarryOn(EtcdCluster cluster) {
        EtcdMember oldLeader = cluster.awaitLeader(LIMIT);

        cluster.peerNetwork().isolate(oldLeader);

        assertThat(cluster.peerNetwork().isPartitioned()).isTrue();
        EtcdMember newLeader = await("a leader among the two connected members")
                .atMost(LIMIT)
                .pollInterval(Duration.ofMillis(100))
                .until(cluster::findLeader, leader -> leader.isPresent() && leader.get() != oldLeader)
                .orElseThrow();
        // The isolated member still answers its clients but cannot serve a quorum read.
        await("the isolated member to report itself unhealthy").atMost(LIMIT).until(() -> !oldLeader.isHealthy());
        assertThat(cluster.followers()).doesNotContain(newLeader);

        cluster.peerNetwork().heal();

        await("the isolated member to rejoin").atMost(LIMIT).until(oldLeader::isHealthy);
        assertThat(cluster.findLeader()).isPresent();
    }

    @Test
    void anIsolatedFollowerLeavesTheLeaderInPlace(EtcdCluster cluster) {
        EtcdMember leader = cluster.awaitLeader(LIMIT);
        EtcdMember follower = cluster.followers().get(0);

        cluster.peerNetwork().partition(List.of(follower));

        await("the isolated follower to report itself unhealthy").atMost(LIMIT).until(() -> !follower.isHealthy());
        // Quorum is the leader and the other follower, so writes and reads go on.
        assertThat(cluster.findLeader()).isEqualTo(Optional.of(leader));
        cluster.members().stream()
                .filter(member -> member != follower)
                .forEach(member ->
                        assertThat(member.isHealthy()).as(member.name()).isTrue());

        cluster.peerNetwork().heal();

        await("the follower to rejoin").atMost(LIMIT).until(follower::isHealthy);
    }

    @Test
    void aClusterWithoutThePeerNetworkSaysHowToGetOne() {
        try (EtcdCluster plain = EtcdCluster.start(1)) {
            assertThatThrownBy(plain::peerNetwork)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("peerNetwork()");
        }
    }
}
