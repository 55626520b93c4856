package dev.fencelock.autoconfigure.etcd.docker.compose;

import dev.fencelock.autoconfigure.etcd.EtcdConnectionDetails;
import dev.fencelock.autoconfigure.etcd.EtcdImages;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionDetailsFactory;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSource;

/**
 * {@link EtcdConnectionDetails} from a Docker Compose service of an etcd image ({@code
 * gcr.io/etcd-development/etcd}, {@code quay.io/coreos/etcd}, {@code bitnami/etcd}), or one labelled
 * {@code org.springframework.boot.service-connection: etcd-development/etcd}. The service must
 * publish the client port 2379 and advertise a URL that the application can reach.
 */
class EtcdDockerComposeConnectionDetailsFactory extends DockerComposeConnectionDetailsFactory<EtcdConnectionDetails> {

    EtcdDockerComposeConnectionDetailsFactory() {
        super(EtcdImages.CONNECTION_NAMES.toArray(String[]::new));
    }

    @Override
    protected EtcdConnectionDetails getDockerComposeConnectionDetails(DockerComposeConnectionSource source) {
        return new EtcdDockerComposeConnectionDetails(source.getRunningService());
    }

    /** The service's published client port on the Docker host. */
    static final class EtcdDockerComposeConnectionDetails extends DockerComposeConnectionDetails
            implements EtcdConnectionDetails {

        private final String endpoint;

        private final @Nullable String password;

        private EtcdDockerComposeConnectionDetails(RunningService service) {
            super(service);
            this.endpoint = "http://" + service.host() + ":" + service.ports().get(EtcdImages.CLIENT_PORT);
            String password = service.env().get(EtcdImages.BITNAMI_ROOT_PASSWORD);
            this.password = (password != null && !password.isEmpty()) ? password : null;
        }

        @Override
        public List<String> getEndpoints() {
            return List.of(this.endpoint);
        }

        @Override
        public @Nullable String getUsername() {
            return (this.password != null) ? EtcdImages.BITNAMI_ROOT_USER : null;
        }

        @Override
        public @Nullable String getPassword() {
            return this.password;
        }
    }
}
