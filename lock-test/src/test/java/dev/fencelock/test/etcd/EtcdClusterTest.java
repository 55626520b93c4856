package dev.fencelock.test.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class EtcdClusterTest {

    /** A give-up time for a member's answer: a loaded machine may take seconds. */
    private static final Duration ANSWER_WITHIN = Duration.ofSeconds(30);

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(3);

    /** A give-up time: an election takes 1-2 s, more on a loaded machine. */
    private static final Duration FAILOVER_LIMIT = Duration.ofSeconds(30);

    /** Tests break members on purpose; each one hands the next a whole cluster again. */
    @AfterEach
    void healCluster() {
        for (EtcdMember member : etcd.cluster().members()) {
            if (member.isPaused()) {
                member.resume();
            }
            if (!member.isRunning()) {
                member.restart();
            }
        }
        etcd.cluster().members().forEach(member -> member.awaitHealthy(FAILOVER_LIMIT));
    }

    @Test
    void startsThreeHealthyMembersWithExactlyOneLeader(EtcdCluster cluster) {
        assertThat(cluster.size()).isEqualTo(3);
        assertThat(cluster.members()).extracting(EtcdMember::name).containsExactly("m1", "m2", "m3");
        assertThat(cluster.endpoints())
                .hasSize(3)
                .allSatisfy(endpoint -> assertThat(endpoint).matches("http://127\\.0\\.0\\.1:\\d+"))
                .doesNotHaveDuplicates();
        assertThat(cluster.endpointsCsv()).isEqualTo(String.join(",", cluster.endpoints()));
        assertThat(cluster.members())
                .allSatisfy(
                        member -> assertThat(member.isHealthy(ANSWER_WITHIN)).isTrue());

        EtcdMember leader = cluster.awaitLeader(FAILOVER_LIMIT);

        assertThat(cluster.members().stream().filter(EtcdMember::isLeader)).containsExactly(leader);
        assertThat(cluster.followers()).hasSize(2).doesNotContain(leader);
        assertThat(cluster.members().stream().map(EtcdMember::memberId).distinct())
                .hasSize(3);
    }

    @Test
    void killingTheLeaderElectsAnotherAndTheRestartedMemberRejoins(EtcdCluster cluster) {
        EtcdMember oldLeader = cluster.awaitLeader(FAILOVER_LIMIT);
        long oldPid = oldLeader.pid();

        long killedAt = System.nanoTime();
        oldLeader.kill();

        assertThat(oldLeader.isRunning()).isFalse();
        assertThat(isAlive(oldPid)).isFalse();
        EtcdMember newLeader = await("a new leader after killing " + oldLeader)
                .atMost(FAILOVER_LIMIT)
                .pollInterval(Duration.ofMillis(50))
                .until(cluster::findLeader, leader -> leader.isPresent() && leader.get() != oldLeader)
                .orElseThrow();
        System.out.printf(
                "new leader %s elected %d ms after killing %s%n",
                newLeader.name(), (System.nanoTime() - killedAt) / 1_000_000, oldLeader.name());

        oldLeader.restart();

        assertThat(oldLeader.isHealthy(ANSWER_WITHIN)).isTrue();
        assertThat(oldLeader.pid()).isNotEqualTo(oldPid);
        assertThat(cluster.awaitLeader(FAILOVER_LIMIT)).isNotNull();
    }

    @Test
    void aPausedFollowerStopsAnsweringUntilResumed(EtcdCluster cluster) {
        EtcdMember follower = cluster.followers().get(0);

        follower.pause();

        assertThat(follower.isPaused()).isTrue();
        assertThat(follower.isRunning()).isTrue();
        assertThat(follower.isHealthy(Duration.ofMillis(500))).isFalse();
        assertThat(cluster.awaitLeader(FAILOVER_LIMIT)).isNotEqualTo(follower);

        follower.resume();

        await("paused follower healthy again").atMost(FAILOVER_LIMIT).until(follower::isHealthy);
        assertThat(follower.isPaused()).isFalse();
    }

    @Test
    void exposesPrometheusMetricsOfEachMember(EtcdCluster cluster) {
        EtcdMember member = cluster.member(0);

        assertThat(member.metrics()).contains("etcd_server_has_leader");
        assertThat(member.metric("etcd_server_has_leader", null)).isEqualTo(1.0);
        assertThat(member.metric("grpc_server_handled_total", "grpc_method=\"NoSuchMethod\""))
                .isZero();
    }

    @Test
    void closeEndsEveryMemberProcessAlsoPausedOnesAndDeletesTheData() {
        EtcdCluster cluster = EtcdCluster.start(3);
        List<Long> pids;
        List<Path> directories;
        try {
            pids = cluster.members().stream().map(EtcdMember::pid).collect(Collectors.toList());
            directories = cluster.members().stream().map(EtcdMember::directory).collect(Collectors.toList());
            cluster.member(1).pause();
            cluster.member(2).kill();
        } finally {
            cluster.close();
        }

        cluster.close();

        assertThat(pids).allSatisfy(pid -> assertThat(isAlive(pid)).isFalse());
        assertThat(directories).allSatisfy(directory -> assertThat(directory).doesNotExist());
        assertThat(cluster.members()).noneMatch(EtcdMember::isRunning);
    }

    @Test
    void startingTwiceIsRefused(EtcdCluster cluster) {
        assertThatThrownBy(cluster::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aMissingBinaryExplainsHowToInstallEtcd() {
        Path missing = Path.of("/nonexistent/etcd");

        assertThat(Files.exists(missing)).isFalse();
        assertThatThrownBy(() -> EtcdCluster.builder().binary(missing).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("/nonexistent/etcd")
                .hasMessageContaining("apt-get install -y etcd-server");
    }

    @Test
    void refusesSettingsEtcdWouldRejectOrThatGiveNoFaultTolerance() {
        assertThatThrownBy(() -> EtcdCluster.builder().members(2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EtcdCluster.builder()
                        .heartbeatInterval(Duration.ofMillis(300))
                        .electionTimeout(Duration.ofMillis(1000))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("5 heartbeats");
    }

    private static boolean isAlive(long pid) {
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        return handle.map(ProcessHandle::isAlive).orElse(false);
    }
}
