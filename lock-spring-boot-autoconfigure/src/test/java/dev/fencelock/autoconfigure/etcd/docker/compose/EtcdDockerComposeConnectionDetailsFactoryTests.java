package dev.fencelock.autoconfigure.etcd.docker.compose;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.autoconfigure.etcd.EtcdConnectionDetails;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactories;
import org.springframework.boot.docker.compose.core.ConnectionPorts;
import org.springframework.boot.docker.compose.core.ImageReference;
import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.TestDockerComposeConnectionSources;

/** Docker Compose services of etcd images become {@link EtcdConnectionDetails}; no Docker needed. */
class EtcdDockerComposeConnectionDetailsFactoryTests {

    @Test
    void etcdProjectImageShouldGiveThePublishedClientPort() {
        EtcdConnectionDetails details =
                details(new Service("gcr.io/etcd-development/etcd:v3.5.17", Map.of(), Map.of()));
        assertThat(details).isNotNull();
        assertThat(details.getEndpoints()).containsExactly("http://127.0.0.1:32379");
        assertThat(details.getUsername()).isNull();
        assertThat(details.getPassword()).isNull();
    }

    @Test
    void quayImageShouldBeRecognised() {
        assertThat(details(new Service("quay.io/coreos/etcd:v3.5.17", Map.of(), Map.of())))
                .isNotNull();
    }

    @Test
    void bitnamiImageWithRootPasswordShouldLogInAsRoot() {
        EtcdConnectionDetails details =
                details(new Service("bitnami/etcd:3.5", Map.of("ETCD_ROOT_PASSWORD", "s3cret"), Map.of()));
        assertThat(details).isNotNull();
        assertThat(details.getUsername()).isEqualTo("root");
        assertThat(details.getPassword()).isEqualTo("s3cret");
    }

    @Test
    void serviceLabelledAsEtcdShouldBeRecognised() {
        Map<String, String> label = Map.of("org.springframework.boot.service-connection", "etcd-development/etcd");
        assertThat(details(new Service("registry.example/mirror/etcd:1", Map.of(), label)))
                .isNotNull();
    }

    @Test
    void otherImagesShouldBeLeftToOtherFactories() {
        assertThat(new EtcdDockerComposeConnectionDetailsFactory()
                        .getConnectionDetails(
                                TestDockerComposeConnectionSources.of(new Service("redis:7", Map.of(), Map.of()))))
                .isNull();
    }

    /** Finds the details the way Boot's Docker Compose support does: through every registered factory. */
    private static @Nullable EtcdConnectionDetails details(RunningService service) {
        Map<Class<?>, ConnectionDetails> all = new ConnectionDetailsFactories(null)
                .getConnectionDetails(TestDockerComposeConnectionSources.of(service), false);
        return (EtcdConnectionDetails) all.get(EtcdConnectionDetails.class);
    }

    /** A running service as {@code docker compose ps} would report it, publishing 2379 as 32379. */
    record Service(String imageName, Map<String, @Nullable String> env, Map<String, String> labels)
            implements RunningService {

        @Override
        public String name() {
            return "etcd";
        }

        @Override
        public ImageReference image() {
            return ImageReference.of(this.imageName);
        }

        @Override
        public String host() {
            return "127.0.0.1";
        }

        @Override
        public ConnectionPorts ports() {
            return new ConnectionPorts() {
                @Override
                public int get(int containerPort) {
                    if (containerPort != 2379) {
                        throw new IllegalStateException("No host port for container port " + containerPort);
                    }
                    return 32379;
                }

                @Override
                public List<Integer> getAll() {
                    return List.of(32379);
                }

                @Override
                public List<Integer> getAll(@Nullable String protocol) {
                    return List.of(32379);
                }
            };
        }
    }
}
