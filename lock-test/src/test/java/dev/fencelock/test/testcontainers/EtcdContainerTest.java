package dev.fencelock.test.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import org.junit.jupiter.api.Test;

/**
 * What {@link EtcdContainer} asks Docker for. Nothing here starts a container (no Docker engine
 * runs where this project is built); the container-backed tests are in the {@code docker} profile.
 */
class EtcdContainerTest {

    @Test
    void exposesTheClientPortAndListensOnAllInterfaces() {
        try (EtcdContainer etcd = new EtcdContainer(EtcdContainer.DEFAULT_IMAGE)) {
            assertThat(etcd.getExposedPorts()).containsExactly(2379);
            assertThat(etcd.getCommandParts())
                    .startsWith("etcd")
                    .contains(
                            "--listen-client-urls=http://0.0.0.0:2379", "--advertise-client-urls=http://0.0.0.0:2379");
        }
    }

    @Test
    void acceptsTheQuayMirrorOfTheEtcdImage() {
        try (EtcdContainer etcd = new EtcdContainer("quay.io/coreos/etcd:v3.5.17")) {
            assertThat(etcd.getExposedPorts()).containsExactly(2379);
        }
    }

    @Test
    void refusesAnImageThatIsNotEtcds() {
        assertThatIllegalStateException()
                .isThrownBy(() -> new EtcdContainer("redis:7"))
                .withMessageContaining("redis");
    }
}
