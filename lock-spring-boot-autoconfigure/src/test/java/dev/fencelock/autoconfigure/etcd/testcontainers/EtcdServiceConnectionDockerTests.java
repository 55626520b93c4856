package dev.fencelock.autoconfigure.etcd.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.EtcdConnectionDetails;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.test.testcontainers.EtcdContainer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * {@code @ServiceConnection} with a real etcd container. Needs a Docker engine: tagged {@code
 * docker}, which the build excludes unless {@code -Pdocker}; without Docker it is skipped even then.
 */
@Tag("docker")
@Testcontainers(disabledWithoutDocker = true)
@SpringBootTest(classes = EtcdServiceConnectionDockerTests.LockApplication.class)
class EtcdServiceConnectionDockerTests {

    @Container
    @ServiceConnection
    static final EtcdContainer etcd = new EtcdContainer(EtcdContainer.DEFAULT_IMAGE);

    @Autowired
    EtcdConnectionDetails connectionDetails;

    @Autowired
    EtcdLockBackend backend;

    @Autowired
    LockClient client;

    @Test
    void locksAreTakenOnTheContainersEtcd() {
        assertThat(this.connectionDetails.getEndpoints()).containsExactly(etcd.getClientEndpoint());
        assertThat(this.backend.endpoints()).containsExactly(etcd.getClientEndpoint());
        try (LockLease lease = this.client.acquire(LockRequest.of("container:1"))) {
            assertThat(lease.fencingToken()).isPositive();
        }
    }

    @SpringBootConfiguration
    @ImportAutoConfiguration({FenceLockEtcdAutoConfiguration.class, FenceLockAutoConfiguration.class})
    static class LockApplication {}
}
