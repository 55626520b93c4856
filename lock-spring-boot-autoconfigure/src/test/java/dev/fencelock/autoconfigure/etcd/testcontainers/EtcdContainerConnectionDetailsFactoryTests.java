package dev.fencelock.autoconfigure.etcd.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.EtcdConnectionDetails;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.testcontainers.EtcdContainer;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactories;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.springframework.boot.testcontainers.service.connection.TestContainerConnectionSources;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;

/**
 * {@code @ServiceConnection} on an etcd container, without Docker: the container is a stand-in
 * whose "mapped port" is a local etcd member of the test kit, so the details the factory makes are
 * used for real by the auto-configured backend.
 */
class EtcdContainerConnectionDetailsFactoryTests {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    @Test
    void etcdContainerShouldBeFoundThroughBootsFactoryLookupAndServeLocks() throws Exception {
        String image = EtcdContainer.DEFAULT_IMAGE.asCanonicalNameString();
        RunningEtcdContainer container = new RunningEtcdContainer(image);
        EtcdConnectionDetails details =
                detailsFor(TestContainerConnectionSources.of(RunningEtcdContainer.class, container, image, ""));

        assertThat(details.getEndpoints()).containsExactly(etcd.cluster().endpointsCsv());
        assertThat(details.getUsername()).isNull();
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(FenceLockEtcdAutoConfiguration.class, FenceLockAutoConfiguration.class))
                .withBean(EtcdConnectionDetails.class, () -> details)
                .run((context) -> {
                    assertThat(context.getBean(EtcdLockBackend.class).endpoints())
                            .containsExactly(etcd.cluster().endpointsCsv());
                    try (LockLease lease = context.getBean(LockClient.class).acquire(LockRequest.of("container:1"))) {
                        assertThat(lease.fencingToken()).isPositive();
                    }
                });
    }

    @Test
    void quayAndBitnamiImagesShouldBeRecognised() throws Exception {
        for (String image : new String[] {"quay.io/coreos/etcd:v3.5.17", "bitnami/etcd:3.5"}) {
            RunningEtcdContainer container = new RunningEtcdContainer(image);
            assertThat(detailsFor(TestContainerConnectionSources.of(RunningEtcdContainer.class, container, image, ""))
                            .getEndpoints())
                    .as(image)
                    .hasSize(1);
        }
    }

    @Test
    void bitnamiRootPasswordShouldBecomeTheCredentials() throws Exception {
        RunningEtcdContainer container = new RunningEtcdContainer("bitnami/etcd:3.5");
        container.withEnv("ETCD_ROOT_PASSWORD", "s3cret");
        EtcdConnectionDetails details = detailsFor(
                TestContainerConnectionSources.of(RunningEtcdContainer.class, container, "bitnami/etcd:3.5", ""));
        assertThat(details.getUsername()).isEqualTo("root");
        assertThat(details.getPassword()).isEqualTo("s3cret");
    }

    @Test
    void otherImagesShouldBeLeftToOtherFactories() {
        RunningEtcdContainer container = new RunningEtcdContainer("redis:7");
        ContainerConnectionSource<RunningEtcdContainer> source =
                TestContainerConnectionSources.of(RunningEtcdContainer.class, container, "redis:7", "");
        @SuppressWarnings({"unchecked", "rawtypes"})
        ContainerConnectionSource<Container<?>> anyContainer = (ContainerConnectionSource) source;
        assertThat(new EtcdContainerConnectionDetailsFactory().getConnectionDetails(anyContainer))
                .isNull();
    }

    @Test
    void anImageNamedEtcdByTheAnnotationShouldBeRecognised() throws Exception {
        RunningEtcdContainer container = new RunningEtcdContainer("registry.example/mirror/etcd:1");
        EtcdConnectionDetails details = detailsFor(TestContainerConnectionSources.of(
                RunningEtcdContainer.class, container, "registry.example/mirror/etcd:1", "etcd-development/etcd"));
        assertThat(details.getEndpoints()).hasSize(1);
    }

    /** Finds the details the way {@code @ServiceConnection} does: through every registered factory. */
    private static EtcdConnectionDetails detailsFor(ContainerConnectionSource<?> source) throws Exception {
        Map<Class<?>, ConnectionDetails> all = new ConnectionDetailsFactories(null).getConnectionDetails(source, true);
        EtcdConnectionDetails details = (EtcdConnectionDetails) all.get(EtcdConnectionDetails.class);
        assertThat(details).as("details from the registered factories").isNotNull();
        ((InitializingBean) details).afterPropertiesSet();
        return details;
    }

    /** A container that Docker never ran: it reports the local etcd member as its mapped client port. */
    static final class RunningEtcdContainer extends GenericContainer<RunningEtcdContainer> {

        RunningEtcdContainer(String image) {
            super(image);
        }

        @Override
        public String getHost() {
            return URI.create(etcd.cluster().endpointsCsv()).getHost();
        }

        @Override
        public Integer getMappedPort(int originalPort) {
            assertThat(originalPort).as("etcd's client port").isEqualTo(2379);
            return URI.create(etcd.cluster().endpointsCsv()).getPort();
        }

        @Override
        public boolean isRunning() {
            return true;
        }

        @Override
        public void start() {
            throw new AssertionError("no container is started here");
        }
    }
}
