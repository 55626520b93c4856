package dev.fencelock.autoconfigure.web;

import dev.fencelock.web.LockProblemDetailsExceptionHandler;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ProblemDetail;

/**
 * Auto-configuration of {@link LockProblemDetailsExceptionHandler} in Spring MVC and WebFlux
 * applications: FenceLock's exceptions reach HTTP callers as problem details instead of 500. Off
 * with {@code fencelock.problem-details.enabled=false}; backs off when the application defines the
 * handler itself, and its own exception handlers answer first.
 */
@AutoConfiguration
@ConditionalOnWebApplication
@ConditionalOnClass(ProblemDetail.class)
@ConditionalOnProperty(prefix = "fencelock", name = "enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "fencelock.problem-details.enabled", matchIfMissing = true)
@EnableConfigurationProperties(FenceLockProblemDetailsProperties.class)
public final class FenceLockProblemDetailsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockProblemDetailsExceptionHandler fenceLockProblemDetailsExceptionHandler(
            FenceLockProblemDetailsProperties properties) {
        return new LockProblemDetailsExceptionHandler(properties.getRetryAfter());
    }
}
