package dev.fencelock.autoconfigure.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.FencingContext;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.actuate.FenceLockHealthIndicator;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.LockBackendMissingException;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.autoconfigure.health.FenceLockHealthContributorAutoConfiguration;
import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.test.zookeeper.ZooKeeperEnsembleExtension;
import dev.fencelock.zookeeper.ZooKeeperLockBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class FenceLockZooKeeperAutoConfigurationTests {

    @RegisterExtension
    static final ZooKeeperEnsembleExtension zookeeper = ZooKeeperEnsembleExtension.members(1);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class,
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockZooKeeperAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockHealthContributorAutoConfiguration.class,
                    HealthContributorAutoConfiguration.class,
                    HealthContributorRegistryAutoConfiguration.class));

    @Test
    void runWithBackendZooKeeperShouldLockWithFencingTokensAndReportHealth() {
        this.runner
                .withPropertyValues(
                        "fencelock.backend=zookeeper",
                        "fencelock.zookeeper.connect-string=" + zookeeper.connectString(),
                        "fencelock.lease-ttl=5s")
                .withBean(Orders.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(ZooKeeperLockBackend.class);
                    assertThat(context).doesNotHaveBean(io.etcd.jetcd.Client.class);
                    try (LockLease lease = context.getBean(LockClient.class).acquire(LockRequest.of("order:1"))) {
                        assertThat(lease.isFencing()).isTrue();
                    }
                    Orders orders = context.getBean(Orders.class);
                    long first = orders.ship("7");
                    long second = orders.ship("7");
                    assertThat(second).isGreaterThan(first);
                    Health health =
                            context.getBean(FenceLockHealthIndicator.class).health();
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    assertThat(health.getDetails())
                            .containsEntry("backend", "zookeeper")
                            .containsEntry("fencingTokens", true)
                            .containsEntry("connectString", zookeeper.connectString());
                });
    }

    @Test
    void runWithConnectionDetailsShouldPreferThemToTheProperties() {
        this.runner
                .withPropertyValues("fencelock.backend=zookeeper", "fencelock.zookeeper.connect-string=127.0.0.1:1")
                .withBean(ZooKeeperConnectionDetails.class, () -> zookeeper::connectString)
                .run(context -> {
                    try (LockLease lease = context.getBean(LockClient.class).acquire(LockRequest.of("order:2"))) {
                        assertThat(lease.fencingToken()).isPositive();
                    }
                });
    }

    @Test
    void runWithAnotherBackendShouldNotCreateAZooKeeperBackend() {
        this.runner.withPropertyValues("fencelock.backend=in-memory").run(context -> {
            assertThat(context).doesNotHaveBean(ZooKeeperLockBackend.class);
            assertThat(context).hasSingleBean(InMemoryLockBackend.class);
        });
    }

    @Test
    void runWhenLockZooKeeperIsAbsentShouldFailNamingTheModule() {
        this.runner
                .withPropertyValues("fencelock.backend=zookeeper")
                .withClassLoader(new FilteredClassLoader(ZooKeeperLockBackend.class))
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasRootCauseInstanceOf(LockBackendMissingException.class)
                        .rootCause()
                        .hasMessageContaining("dev.fencelock:lock-zookeeper"));
    }

    @Test
    void runWithAUsernameButNoPasswordShouldFailSayingWhatIsMissing() {
        this.runner
                .withPropertyValues(
                        "fencelock.backend=zookeeper",
                        "fencelock.zookeeper.connect-string=" + zookeeper.connectString(),
                        "fencelock.zookeeper.username=locks")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("fencelock.zookeeper.password"));
    }

    public static class Orders {

        @DistributedLock(key = "'order:' + #id")
        public long ship(String id) {
            return FencingContext.current().orElseThrow().token();
        }
    }
}
