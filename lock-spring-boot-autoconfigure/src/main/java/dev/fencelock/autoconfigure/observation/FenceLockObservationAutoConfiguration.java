package dev.fencelock.autoconfigure.observation;

import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.interceptor.LockCallObserver;
import dev.fencelock.observation.LockAcquisitionObservationConvention;
import dev.fencelock.observation.LockHoldObservationConvention;
import dev.fencelock.observation.LockObservations;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Observations of {@code @DistributedLock} calls ({@code fencelock.acquisition}, {@code
 * fencelock.hold}), when the application has an {@link ObservationRegistry}: Spring Boot then turns
 * them into timers and, with tracing, into spans. A {@link LockAcquisitionObservationConvention} or
 * {@link LockHoldObservationConvention} bean replaces the default names and keys. Off with {@code
 * fencelock.observation.enabled=false}.
 */
@AutoConfiguration(
        after = FenceLockAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnBooleanProperty(name = "fencelock.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "fencelock.observation.enabled", matchIfMissing = true)
@ConditionalOnClass({ObservationRegistry.class, LockObservations.class})
@ConditionalOnBean(ObservationRegistry.class)
public final class FenceLockObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockObservations lockObservations(
            ObservationRegistry registry,
            ObjectProvider<LockAcquisitionObservationConvention> acquisitionConvention,
            ObjectProvider<LockHoldObservationConvention> holdConvention) {
        return new LockObservations(registry, acquisitionConvention.getIfUnique(), holdConvention.getIfUnique());
    }

    @Bean
    @ConditionalOnMissingBean
    LockCallObserver lockCallObserver(LockObservations observations) {
        return new ObservationLockCallObserver(observations);
    }
}
