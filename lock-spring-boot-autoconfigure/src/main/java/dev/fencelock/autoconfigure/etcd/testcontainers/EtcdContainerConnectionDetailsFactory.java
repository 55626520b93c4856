package dev.fencelock.autoconfigure.etcd.testcontainers;

import dev.fencelock.autoconfigure.etcd.EtcdConnectionDetails;
import dev.fencelock.autoconfigure.etcd.EtcdImages;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.testcontainers.containers.Container;

/**
 * {@link EtcdConnectionDetails} from a container annotated {@code @ServiceConnection}: any container
 * of an etcd image ({@code gcr.io/etcd-development/etcd}, {@code quay.io/coreos/etcd}, {@code
 * bitnami/etcd}), the test kit's {@code EtcdContainer} among them, or one whose {@code
 * @ServiceConnection(name = "etcd-development/etcd")} says it is etcd.
 */
class EtcdContainerConnectionDetailsFactory
        extends ContainerConnectionDetailsFactory<Container<?>, EtcdConnectionDetails> {

    EtcdContainerConnectionDetailsFactory() {
        super(EtcdImages.CONNECTION_NAMES);
    }

    @Override
    protected EtcdConnectionDetails getContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
        return new EtcdContainerConnectionDetails(source);
    }

    /** The container's mapped client port on the host Testcontainers reaches it through. */
    static final class EtcdContainerConnectionDetails extends ContainerConnectionDetails<Container<?>>
            implements EtcdConnectionDetails {

        private EtcdContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
            super(source);
        }

        @Override
        public List<String> getEndpoints() {
            Container<?> container = getContainer();
            String scheme = (getSslBundle() != null) ? "https://" : "http://";
            return List.of(scheme + container.getHost() + ":" + container.getMappedPort(EtcdImages.CLIENT_PORT));
        }

        /** The bundle of the container's {@code @Ssl…} annotations, if any: then etcd is reached over TLS. */
        @Override
        public @Nullable SslBundle getSslBundle() {
            return super.getSslBundle();
        }

        @Override
        public @Nullable String getUsername() {
            return (rootPassword() != null) ? EtcdImages.BITNAMI_ROOT_USER : null;
        }

        @Override
        public @Nullable String getPassword() {
            return rootPassword();
        }

        private @Nullable String rootPassword() {
            String password = getContainer().getEnvMap().get(EtcdImages.BITNAMI_ROOT_PASSWORD);
            return (password != null && !password.isEmpty()) ? password : null;
        }
    }
}
