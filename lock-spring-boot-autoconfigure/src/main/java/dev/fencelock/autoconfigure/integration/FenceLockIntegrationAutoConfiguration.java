package dev.fencelock.autoconfigure.integration;

import dev.fencelock.LockClient;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.integration.FenceLockRegistry;
import java.time.Duration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Auto-configuration of a {@link FenceLockRegistry} when Spring Integration and FenceLock's
 * {@code lock-spring-integration} are on the class path: a {@code LockRegistryLeaderInitiator} on
 * it elects leaders on etcd, and its locks carry fencing tokens. Backs off when the application
 * defines a {@link LockRegistry} of its own.
 */
@AutoConfiguration(after = FenceLockAutoConfiguration.class)
@ConditionalOnClass({LockRegistry.class, FenceLockRegistry.class})
@ConditionalOnBean(LockClient.class)
@EnableConfigurationProperties(FenceLockIntegrationProperties.class)
public final class FenceLockIntegrationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    FenceLockRegistry fenceLockRegistry(LockClient lockClient, FenceLockIntegrationProperties properties) {
        FenceLockRegistry.Builder builder = FenceLockRegistry.builder(lockClient)
                .keyPrefix(properties.getKeyPrefix())
                .fenceWrites(properties.isFenceWrites());
        Duration leaseTtl = properties.getLeaseTtl();
        if (leaseTtl != null) {
            builder.leaseTtl(leaseTtl);
        }
        return builder.build();
    }
}
