package dev.fencelock.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.autoconfigure.etcd.EtcdConnectionDetails;
import dev.fencelock.autoconfigure.etcd.PropertiesEtcdConnectionDetails;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.etcd.EtcdMember;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The development launcher: the application's own {@code main}, plus an etcd from the test kit that
 * is the application's {@link EtcdConnectionDetails} and goes away with it.
 */
class TestInventoryApplicationTests {

    @Test
    void launcherRunsTheApplicationAgainstItsOwnEtcdAndStopsItOnClose() {
        SpringApplication.Running running = SpringApplication.from(InventoryApplication::main)
                .with(TestEtcdConfiguration.class)
                .run("--server.port=0", "--fencelock.fencing.scope=launcher-${random.uuid}");
        ConfigurableApplicationContext context = running.getApplicationContext();
        EtcdCluster etcd = context.getBean(EtcdCluster.class);
        List<EtcdMember> members = etcd.members();
        try {
            assertThat(context.getBeansOfType(EtcdConnectionDetails.class)).hasSize(1);
            assertThat(context.getBeansOfType(PropertiesEtcdConnectionDetails.class))
                    .isEmpty();
            assertThat(context.getBean(EtcdLockBackend.class).endpoints()).isEqualTo(etcd.endpoints());
            try (LockLease lease = context.getBean(LockClient.class).acquire(LockRequest.of("stock:launcher"))) {
                assertThat(lease.fencingToken()).isPositive();
            }
        } finally {
            context.close();
        }
        assertThat(members).noneMatch(EtcdMember::isRunning);
    }
}
