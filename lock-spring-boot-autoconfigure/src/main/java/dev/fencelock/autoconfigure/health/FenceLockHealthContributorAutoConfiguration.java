package dev.fencelock.autoconfigure.health;

import dev.fencelock.LockClient;
import dev.fencelock.actuate.CapacityThresholds;
import dev.fencelock.actuate.FenceLockHealthIndicator;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.FenceLockProperties;
import java.time.Duration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code fencelock} health contributor
 * ({@code /actuator/health/fencelock}); off with {@code management.health.fencelock.enabled=false}.
 *
 * <p>The bean is named {@code fencelockHealthIndicator} because Boot derives the contributor's name
 * (and its URL path) from the bean name without the {@code HealthIndicator} suffix.
 */
@AutoConfiguration(after = FenceLockAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(LockClient.class)
@ConditionalOnEnabledHealthIndicator("fencelock")
public final class FenceLockHealthContributorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = {"fencelockHealthIndicator", "fencelockHealthContributor"})
    FenceLockHealthIndicator fencelockHealthIndicator(LockClient client, FenceLockProperties properties) {
        FenceLockProperties.Health health = properties.getHealth();
        Duration timeout = health.getTimeout();
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalStateException("fencelock.health.timeout must be positive, but was " + timeout);
        }
        if (health.getCacheTtl().isNegative()) {
            throw new IllegalStateException(
                    "fencelock.health.cache-ttl must not be negative, but was " + health.getCacheTtl());
        }
        FenceLockProperties.Health.Capacity capacity = health.getCapacity();
        CapacityThresholds thresholds;
        try {
            thresholds = new CapacityThresholds(
                    capacity.getDbSizeWarning(),
                    capacity.getRevisionsSinceCompactionWarning(),
                    capacity.getTimeSinceCompactionWarning());
        } catch (IllegalArgumentException ex) {
            throw new IllegalStateException("fencelock.health.capacity.*: " + ex.getMessage(), ex);
        }
        return new FenceLockHealthIndicator(client, timeout, health.getCacheTtl(), thresholds);
    }
}
