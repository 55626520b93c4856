package dev.fencelock.test.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A test that must find etcd where something else expects it (a fixed port in a configuration
 * file, a proxy set up beforehand) pins the members' ports instead of taking free ones.
 */
class EtcdClusterPortsTest {

    /** A give-up time for a member's answer: a loaded machine may take seconds. */
    private static final Duration ANSWER_WITHIN = Duration.ofSeconds(30);

    @Test
    void pinnedPortsAreTheOnesTheMembersListenOn() {
        int[] ports = LoopbackPorts.reserve(2);
        try (EtcdCluster cluster = EtcdCluster.builder()
                .clientPorts(ports[0])
                .peerPorts(ports[1])
                .build()
                .start()) {
            assertThat(cluster.endpoints()).containsExactly("http://127.0.0.1:" + ports[0]);
            assertThat(cluster.member(0).clientPort()).isEqualTo(ports[0]);
            assertThat(cluster.member(0).peerEndpoint()).isEqualTo("http://127.0.0.1:" + ports[1]);
            assertThat(cluster.member(0).isHealthy(ANSWER_WITHIN)).isTrue();
        }
    }

    @Test
    void aPortCountThatDoesNotMatchTheMembersIsRefused() {
        assertThatIllegalArgumentException()
                .isThrownBy(() ->
                        EtcdCluster.builder().members(3).clientPorts(23790).build())
                .withMessageContaining("3 members")
                .withMessageContaining("1 client port");
    }

    @Test
    void aPinnedPortInUseIsNamedBeforeEtcdStarts() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            EtcdCluster cluster = EtcdCluster.builder().clientPorts(port).build();
            assertThatIllegalStateException()
                    .isThrownBy(cluster::start)
                    .withMessageContaining("127.0.0.1:" + port)
                    .withMessageContaining("in use");
        }
    }
}
