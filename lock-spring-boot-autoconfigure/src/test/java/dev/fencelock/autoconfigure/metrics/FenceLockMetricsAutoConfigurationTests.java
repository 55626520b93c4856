package dev.fencelock.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.metrics.BackendMetrics;
import dev.fencelock.metrics.LockMetrics;
import dev.fencelock.spi.WriteOperation;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class FenceLockMetricsAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockMetricsAutoConfiguration.class,
                    MetricsAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class)
            .withPropertyValues("fencelock.backend=in-memory");

    @Test
    void acquireAndReleaseShouldBeTimedAndHoldingTracked() {
        this.runner.run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            LockLease lease = client.acquire(request("order:1"));
            assertThat(registry.get("fencelock.acquire")
                            .tags("lock", "orders", "outcome", "acquired")
                            .timer()
                            .count())
                    .isOne();
            assertThat(registry.get("fencelock.held")
                            .tag("lock", "orders")
                            .longTaskTimer()
                            .activeTasks())
                    .isOne();
            assertThat(registry.get("fencelock.active").gauge().value()).isOne();
            lease.release();
            assertThat(registry.get("fencelock.release")
                            .tag("lock", "orders")
                            .timer()
                            .count())
                    .isOne();
            assertThat(registry.get("fencelock.held")
                            .tag("lock", "orders")
                            .longTaskTimer()
                            .activeTasks())
                    .isZero();
            assertThat(registry.get("fencelock.active").gauge().value()).isZero();
        });
    }

    @Test
    void acquireOfABusyLockShouldCountWaitingAndThenTimeOut() {
        this.runner.run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            try (LockLease held = client.acquire(request("order:2"))) {
                CompletableFuture<LockLease> waiting = client.acquireAsync(LockRequest.builder("order:2")
                        .lockName("orders")
                        .waitTimeout(Duration.ofMillis(300))
                        .build());
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> registry.get("fencelock.waiting").gauge().value() == 1.0);
                assertThatExceptionOfType(Exception.class)
                        .isThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
                        .withCauseInstanceOf(LockAcquisitionTimeoutException.class);
            }
            assertThat(registry.get("fencelock.acquire")
                            .tags("lock", "orders", "outcome", "timeout")
                            .timer()
                            .count())
                    .isOne();
            assertThat(registry.get("fencelock.waiting").gauge().value()).isZero();
        });
    }

    @Test
    void renewalShouldBeTimedByOutcome() {
        this.runner.run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            try (LockLease lease = client.acquire(request("order:3"))) {
                lease.renew();
            }
            assertThat(context.getBean(MeterRegistry.class)
                            .get("fencelock.renew")
                            .tags("lock", "orders", "outcome", "renewed")
                            .timer()
                            .count())
                    .isOne();
        });
    }

    @Test
    void lockTakenAwayFromItsHolderShouldCountAsLost() {
        this.runner.run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            LockLease lease = client.acquire(request("order:4"));
            client.administration()
                    .orElseThrow()
                    .forceRelease(ResourceName.of("order:4", 255))
                    .get(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> registry.find("fencelock.lost")
                                    .tag("lock", "orders")
                                    .counter()
                            != null);
            assertThat(registry.get("fencelock.lost")
                            .tag("lock", "orders")
                            .counter()
                            .count())
                    .isOne();
            assertThat(registry.get("fencelock.held")
                            .tag("lock", "orders")
                            .longTaskTimer()
                            .activeTasks())
                    .isZero();
            assertThat(lease.isValid()).isFalse();
        });
    }

    @Test
    void fencingRejectionShouldBeCounted() {
        this.runner.run((context) -> {
            context.getBean(LockMetrics.class)
                    .fencingRejected(
                            "orders", new FencingTokenRejectedException("order:5", 7, "token 7 is older than 8"));
            assertThat(context.getBean(MeterRegistry.class)
                            .get("fencelock.fencing.rejected")
                            .tag("lock", "orders")
                            .counter()
                            .count())
                    .isOne();
        });
    }

    @Test
    void configuredPercentilesShouldApplyToAcquireTimer() {
        this.runner
                .withPropertyValues("management.metrics.distribution.percentiles.fencelock.acquire=0.5,0.99")
                .run((context) -> {
                    context.getBean(LockClient.class)
                            .acquire(request("order:6"))
                            .release();
                    HistogramSnapshot snapshot = context.getBean(MeterRegistry.class)
                            .get("fencelock.acquire")
                            .tags("lock", "orders", "outcome", "acquired")
                            .timer()
                            .takeSnapshot();
                    assertThat(Arrays.stream(snapshot.percentileValues()).map(ValueAtPercentile::percentile))
                            .containsExactly(0.5, 0.99);
                });
    }

    @Test
    void prometheusScrapeShouldShowEveryMeterUnderTheNamesTheDashboardQueries() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockMetricsAutoConfiguration.class,
                        MetricsAutoConfiguration.class))
                .withBean(PrometheusMeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
                .withPropertyValues(
                        "fencelock.backend=in-memory",
                        "management.metrics.distribution.percentiles-histogram.fencelock.acquire=true")
                .run((context) -> {
                    LockClient client = context.getBean(LockClient.class);
                    try (LockLease lease = client.acquire(request("order:8"))) {
                        lease.renew();
                        assertThat(client.tryAcquire(LockRequest.builder("order:8")
                                        .lockName("orders")
                                        .waitTimeout(Duration.ZERO)
                                        .build()))
                                .isEmpty();
                        // Micrometer 1.13+ renders a long task timer as a summary: _count = active tasks.
                        assertThat(context.getBean(PrometheusMeterRegistry.class)
                                        .scrape())
                                .contains("fencelock_held_seconds_count{lock=\"orders\"} 1\n")
                                .contains("fencelock_active 1.0\n");
                    }
                    LockLease lost = client.acquire(request("order:9"));
                    client.administration()
                            .orElseThrow()
                            .forceRelease(ResourceName.of("order:9", 255))
                            .get(10, TimeUnit.SECONDS);
                    await().atMost(Duration.ofSeconds(10)).until(() -> !lost.isValid());
                    context.getBean(LockMetrics.class)
                            .fencingRejected("orders", new FencingTokenRejectedException("order:9", 1, "stale"));
                    String scrape =
                            context.getBean(PrometheusMeterRegistry.class).scrape();
                    assertThat(scrape)
                            .contains("fencelock_acquire_seconds_count{lock=\"orders\",outcome=\"acquired\"}")
                            .contains("fencelock_acquire_seconds_bucket{lock=\"orders\",outcome=\"acquired\",le=")
                            .contains("fencelock_renew_seconds_count{lock=\"orders\",outcome=\"renewed\"}")
                            .contains("fencelock_release_seconds_count{lock=\"orders\"}")
                            .contains("fencelock_held_seconds_count{lock=\"orders\"} 0\n")
                            .contains("fencelock_held_seconds_sum{lock=\"orders\"}")
                            .contains("fencelock_held_seconds_max{lock=\"orders\"}")
                            .contains("fencelock_active ")
                            .contains("fencelock_waiting ")
                            .contains("fencelock_lost_total{lock=\"orders\"} 1.0")
                            .contains("fencelock_fencing_rejected_total{lock=\"orders\"} 1.0")
                            .contains("fencelock_acquire_seconds_count{lock=\"orders\",outcome=\"conflict\"} 1")
                            .contains("fencelock_hot_waiters{rank=\"1\"}")
                            .contains("fencelock_hot_waiting{rank=\"10\"} 0.0")
                            .contains("fencelock_commit_seconds_count{operation=\"acquire\"} 0")
                            .contains("fencelock_commit_seconds_count{operation=\"renew\"} 0")
                            .contains("fencelock_leader_changes_total 0.0")
                            .contains("fencelock_leader_absent_seconds_count 0")
                            .contains("fencelock_leader_absent_current_seconds 0.0")
                            .contains("fencelock_lease_expired_total 0.0")
                            .contains("fencelock_lease_renewal_failed_total 0.0");
                });
    }

    /**
     * Every series docs/grafana-dashboard.json queries is one the application's scrape shows, under
     * that exact name: a renamed meter, or a panel with a typo, fails here rather than on a blank panel.
     */
    @Test
    void dashboardShouldQueryOnlySeriesThatTheScrapeShows() throws Exception {
        String dashboard = Files.readString(Path.of("..", "docs", "grafana-dashboard.json"));
        Set<String> queried = new TreeSet<>();
        Matcher series = Pattern.compile("fencelock_[a-z_]+").matcher(dashboard);
        while (series.find()) {
            queried.add(series.group());
        }
        assertThat(queried).contains("fencelock_commit_seconds_bucket", "fencelock_hot_waiters");
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockMetricsAutoConfiguration.class,
                        MetricsAutoConfiguration.class))
                .withBean(PrometheusMeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
                .withPropertyValues(
                        "fencelock.backend=in-memory",
                        "management.metrics.distribution.percentiles-histogram.fencelock.acquire=true",
                        "management.metrics.distribution.percentiles-histogram.fencelock.commit=true")
                .run((context) -> {
                    LockClient client = context.getBean(LockClient.class);
                    // Timers of the lock calls appear with their first call; the others exist from the start.
                    try (LockLease lease = client.acquire(request("order:12"))) {
                        lease.renew();
                    }
                    context.getBean(BackendMetrics.class).committed(WriteOperation.ACQUIRE, Duration.ofMillis(3));
                    String scrape =
                            context.getBean(PrometheusMeterRegistry.class).scrape();
                    assertThat(queried)
                            .allSatisfy(name -> assertThat(scrape)
                                    .as("the scrape's series named " + name)
                                    .containsPattern("(?m)^" + name + "[{ ]"));
                });
    }

    @Test
    void hotResourceGaugesShouldFollowTheConfiguredSize() {
        this.runner.withPropertyValues("fencelock.hot-resources.size=3").run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            client.acquire(request("order:13")).release();
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.find("fencelock.hot.waiters").gauges()).hasSize(3);
            assertThat(registry.get("fencelock.hot.waiters")
                            .tag("rank", "1")
                            .gauge()
                            .value())
                    .isPositive();
            assertThat(client.hotResources())
                    .singleElement()
                    .satisfies(hot -> assertThat(hot.resource()).isEqualTo("order:13"));
        });
    }

    @Test
    void runWithUserBackendMetricsShouldBackOff() {
        MeterRegistry own = new SimpleMeterRegistry();
        this.runner
                .withBean("myBackendMetrics", BackendMetrics.class, () -> new BackendMetrics(own))
                .run((context) ->
                        assertThat(context).getBeans(BackendMetrics.class).containsOnlyKeys("myBackendMetrics"));
    }

    /**
     * {@code increase(fencelock_lost_total[5m]) > 0} sees no increase in a series that is born at 1:
     * the first loss of each lock after a restart would be missed. The counters exist at zero once
     * the lock is first used.
     */
    @Test
    void lossAndRejectionCountersShouldBeScrapedAtZeroOnceALockIsFirstUsed() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockMetricsAutoConfiguration.class,
                        MetricsAutoConfiguration.class))
                .withBean(PrometheusMeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
                .withPropertyValues("fencelock.backend=in-memory")
                .run((context) -> {
                    PrometheusMeterRegistry registry = context.getBean(PrometheusMeterRegistry.class);
                    assertThat(registry.scrape()).doesNotContain("fencelock_lost_total");
                    context.getBean(LockClient.class)
                            .acquire(request("order:11"))
                            .release();
                    assertThat(registry.scrape())
                            .contains("fencelock_lost_total{lock=\"orders\"} 0.0\n")
                            .contains("fencelock_lost_after_commit_total{lock=\"orders\"} 0.0\n")
                            .contains("fencelock_fencing_rejected_total{lock=\"orders\"} 0.0\n");
                });
    }

    @Test
    void runWithBootsOwnRegistryShouldRecordIntoIt() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockMetricsAutoConfiguration.class,
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        MetricsAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class))
                .withPropertyValues("fencelock.backend=in-memory")
                .run((context) -> {
                    context.getBean(LockClient.class)
                            .acquire(request("order:10"))
                            .release();
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.get("fencelock.acquire").timer().count())
                            .isOne();
                    assertThat(registry.find("fencelock.active").gauge()).isNotNull();
                });
    }

    @Test
    void runWithoutMeterRegistryShouldNotCreateMetrics() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockMetricsAutoConfiguration.class))
                .withPropertyValues("fencelock.backend=in-memory")
                .run((context) -> {
                    assertThat(context).hasSingleBean(LockClient.class);
                    assertThat(context).doesNotHaveBean(LockMetrics.class);
                    assertThat(context).doesNotHaveBean("fenceLockGauges");
                });
    }

    @Test
    void runWithoutMicrometerShouldNotCreateMetrics() {
        this.runner
                .withClassLoader(new FilteredClassLoader(MeterRegistry.class))
                .run((context) -> {
                    assertThat(context).hasSingleBean(LockClient.class);
                    assertThat(context).doesNotHaveBean(LockMetrics.class);
                });
    }

    @Test
    void runWhenFenceLockIsDisabledShouldNotCreateMetrics() {
        this.runner.withPropertyValues("fencelock.enabled=false").run((context) -> {
            assertThat(context).doesNotHaveBean(LockClient.class);
            assertThat(context).doesNotHaveBean(LockMetrics.class);
        });
    }

    @Test
    void runWithUserLockMetricsShouldBackOffAndUseIt() {
        MeterRegistry own = new SimpleMeterRegistry();
        this.runner
                .withBean("myLockMetrics", LockMetrics.class, () -> new LockMetrics(own))
                .run((context) -> {
                    assertThat(context).getBeans(LockMetrics.class).containsOnlyKeys("myLockMetrics");
                    context.getBean(LockClient.class)
                            .acquire(request("order:7"))
                            .release();
                    assertThat(own.get("fencelock.acquire").timer().count()).isOne();
                });
    }

    private static LockRequest request(String resource) {
        return LockRequest.builder(resource).lockName("orders").build();
    }
}
