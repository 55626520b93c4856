package dev.fencelock.autoconfigure.redis;

import dev.fencelock.LockClient;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.FenceLockProperties;
import dev.fencelock.autoconfigure.OnLockBackendCondition;
import dev.fencelock.redis.RedisLockBackend;
import dev.fencelock.spi.BackendEventListener;
import dev.fencelock.spi.LockBackend;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * The Redis {@link LockBackend} for {@code fencelock.backend=redis}: an efficiency lock whose tokens
 * are not fencing tokens. It connects where Spring Boot's Redis settings point ({@code
 * spring.data.redis.*}, or a service connection), so an application that already talks to Redis
 * configures nothing twice; it opens connections of its own there (one for commands, one for the
 * release channels). Backs off when the application defines its own {@link LockBackend} or {@link
 * LockClient}.
 */
@AutoConfiguration(before = FenceLockAutoConfiguration.class, after = DataRedisAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "fencelock.enabled", matchIfMissing = true)
@ConditionalOnClass({RedisLockBackend.class, DataRedisConnectionDetails.class})
@Conditional(OnLockBackendCondition.Redis.class)
@EnableConfigurationProperties(FenceLockProperties.class)
public final class FenceLockRedisAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean({LockBackend.class, LockClient.class})
    RedisLockBackend redisLockBackend(
            FenceLockProperties properties,
            ObjectProvider<DataRedisConnectionDetails> connectionDetails,
            ObjectProvider<BackendEventListener> backendEventListeners) {
        DataRedisConnectionDetails details = connectionDetails.getIfAvailable();
        if (details == null) {
            throw new IllegalStateException("fencelock.backend=redis needs Spring Boot's Redis connection details"
                    + " (spring.data.redis.*, from spring-boot-data-redis), and none were found");
        }
        return RedisLockBackend.builder()
                .uri(RedisLockUris.from(details))
                .namespace(properties.getNamespace())
                .requestTimeout(properties.getRedis().getRequestTimeout())
                .eventListener(BackendEventListener.composite(
                        backendEventListeners.orderedStream().toList()))
                .build();
    }
}
