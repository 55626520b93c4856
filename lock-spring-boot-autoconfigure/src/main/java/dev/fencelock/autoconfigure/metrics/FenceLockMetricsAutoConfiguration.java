package dev.fencelock.autoconfigure.metrics;

import dev.fencelock.LockClient;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.metrics.BackendMetrics;
import dev.fencelock.metrics.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of FenceLock's {@code fencelock.*} meters, when the application has a
 * {@link MeterRegistry}; without one, nothing is created and locks pay nothing for metrics.
 *
 * <p>{@link LockMetrics} is a {@link dev.fencelock.LockEventListener}, so the auto-configured
 * {@link LockClient} receives it with the other listeners: all bean definitions exist before the
 * client is created, whatever the order of the auto-configurations. This one runs after the
 * Micrometer auto-configurations only so that {@code @ConditionalOnBean(MeterRegistry.class)} sees
 * their registry. The gauges are bound through a {@link MeterBinder}, which Boot applies once the
 * registry is configured (filters such as {@code management.metrics.distribution.*} included).
 */
@AutoConfiguration(
        after = FenceLockAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
        })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({MeterRegistry.class, LockClient.class})
public final class FenceLockMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockMetrics lockMetrics(MeterRegistry registry) {
        return new LockMetrics(registry);
    }

    /**
     * The backend's meters: a {@link dev.fencelock.spi.BackendEventListener}, which the etcd backend
     * receives like the client receives {@link LockMetrics}. With the in-memory backend they stay at zero.
     */
    @Bean
    @ConditionalOnMissingBean
    BackendMetrics backendMetrics(MeterRegistry registry) {
        return new BackendMetrics(registry);
    }

    @Bean
    @ConditionalOnMissingBean(name = "fenceLockGauges")
    MeterBinder fenceLockGauges(LockClient client) {
        return (registry) -> new LockMetrics(registry).bindGauges(client);
    }
}
