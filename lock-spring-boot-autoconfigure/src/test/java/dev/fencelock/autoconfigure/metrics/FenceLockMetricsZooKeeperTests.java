package dev.fencelock.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.zookeeper.FenceLockZooKeeperAutoConfiguration;
import dev.fencelock.metrics.BackendMetrics;
import dev.fencelock.test.zookeeper.ZooKeeperEnsembleExtension;
import dev.fencelock.zookeeper.ZooKeeperLockBackend;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The meters reach the registry when the auto-configured ZooKeeper backend ({@code fencelock.backend=zookeeper})
 * locks on a real ZooKeeper server: its writes, the lock's gauges, and a session lost with its lock.
 */
class FenceLockMetricsZooKeeperTests {

    @RegisterExtension
    static final ZooKeeperEnsembleExtension zookeeper = ZooKeeperEnsembleExtension.members(1);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockZooKeeperAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockMetricsAutoConfiguration.class,
                    MetricsAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class)
            .withPropertyValues(
                    "fencelock.backend=zookeeper", "fencelock.zookeeper.connect-string=" + zookeeper.connectString());

    @Test
    void zooKeeperBackendShouldReportItsWritesAndTheLocksItHolds() {
        this.runner.run((context) -> {
            assertThat(context).hasSingleBean(ZooKeeperLockBackend.class);
            assertThat(context).hasSingleBean(BackendMetrics.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            double acquires = commits(registry, "acquire");
            double releases = commits(registry, "release");
            LockLease lease = context.getBean(LockClient.class)
                    .acquire(LockRequest.builder("order:1").lockName("orders").build());
            assertThat(registry.get("fencelock.acquire")
                            .tags("lock", "orders", "outcome", "acquired")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get("fencelock.held")
                            .tag("lock", "orders")
                            .longTaskTimer()
                            .activeTasks())
                    .isEqualTo(1);
            assertThat(registry.get("fencelock.active").gauge().value()).isEqualTo(1.0);
            lease.release();
            // A write is reported when its answer arrives, which may be just after its caller went on.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(commits(registry, "acquire")).isGreaterThanOrEqualTo(acquires + 1);
                assertThat(commits(registry, "release")).isGreaterThanOrEqualTo(releases + 1);
            });
            assertThat(registry.get("fencelock.held")
                            .tag("lock", "orders")
                            .longTaskTimer()
                            .activeTasks())
                    .isZero();
            assertThat(registry.get("fencelock.active").gauge().value()).isZero();
            // ZooKeeper's answers carry no leader epoch: the backend reports no leader changes.
            assertThat(registry.get("fencelock.leader.changes").counter().count())
                    .isZero();
        });
    }

    @Test
    void aSessionThatRunsOutShouldCountItsLockLostAndTheSessionExpired() {
        this.runner.run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            LockLease lease = context.getBean(LockClient.class)
                    .acquire(LockRequest.builder("order:2")
                            .lockName("expiring")
                            .leaseTtl(Duration.ofSeconds(2))
                            .build());
            assertThat(registry.get("fencelock.lost")
                            .tag("lock", "expiring")
                            .counter()
                            .count())
                    .isZero();
            // No heartbeat goes out any more: the session's locks are lost at its local deadline.
            context.getBean(ZooKeeperLockBackend.class).pauseRenewals();
            await().atMost(Duration.ofSeconds(30)).until(() -> !lease.isValid());
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> registry.get("fencelock.lost")
                                    .tag("lock", "expiring")
                                    .counter()
                                    .count()
                            == 1);
            assertThat(registry.get("fencelock.lease.expired").counter().count())
                    .isEqualTo(1);
            assertThat(registry.get("fencelock.held")
                            .tag("lock", "expiring")
                            .longTaskTimer()
                            .activeTasks())
                    .isZero();
            assertThat(registry.get("fencelock.active").gauge().value()).isZero();
        });
    }

    private static double commits(MeterRegistry registry, String operation) {
        Timer timer =
                registry.find("fencelock.commit").tag("operation", operation).timer();
        return (timer != null) ? timer.count() : 0;
    }
}
