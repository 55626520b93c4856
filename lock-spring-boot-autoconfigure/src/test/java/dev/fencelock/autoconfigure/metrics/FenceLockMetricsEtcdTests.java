package dev.fencelock.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockRequest;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.metrics.BackendMetrics;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The backend's meters reach the registry when the auto-configured etcd backend writes to a real etcd. */
class FenceLockMetricsEtcdTests {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    @Test
    void etcdBackendShouldReportItsWritesToTheBackendMeters() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockMetricsAutoConfiguration.class,
                        MetricsAutoConfiguration.class))
                .withBean(SimpleMeterRegistry.class)
                .withPropertyValues("fencelock.etcd.endpoints=" + etcd.cluster().endpointsCsv())
                .run((context) -> {
                    assertThat(context).hasSingleBean(BackendMetrics.class);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    // The startup check's warm-up takes and releases a lock of its own: once its release is
                    // counted, the counts below are the test's.
                    await().atMost(Duration.ofSeconds(30)).until(() -> commits(registry, "release") == 1);
                    double acquires = commits(registry, "acquire");
                    context.getBean(LockClient.class)
                            .acquire(LockRequest.of("order:1"))
                            .release();
                    // A write is reported when its answer arrives, which may be just after its caller went on.
                    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                        assertThat(commits(registry, "acquire")).isEqualTo(acquires + 1);
                        assertThat(commits(registry, "release")).isEqualTo(2);
                    });
                    assertThat(registry.get("fencelock.leader.changes")
                                    .counter()
                                    .count())
                            .isZero();
                });
    }

    private static double commits(MeterRegistry registry, String operation) {
        Timer timer =
                registry.find("fencelock.commit").tag("operation", operation).timer();
        return (timer != null) ? timer.count() : 0;
    }
}
