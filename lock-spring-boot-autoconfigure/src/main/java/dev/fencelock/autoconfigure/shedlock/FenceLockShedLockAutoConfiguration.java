package dev.fencelock.autoconfigure.shedlock;

import dev.fencelock.LockClient;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.shedlock.FenceLockProvider;
import java.time.Duration;
import net.javacrumbs.shedlock.core.LockProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of a ShedLock {@link FenceLockProvider} when ShedLock and FenceLock's {@code
 * lock-shedlock} are on the class path, so {@code @SchedulerLock} tasks lock on etcd and fence
 * their writes. Backs off when the application defines a {@link LockProvider} of its own.
 */
@AutoConfiguration(after = FenceLockAutoConfiguration.class)
@ConditionalOnClass({LockProvider.class, FenceLockProvider.class})
@ConditionalOnBean(LockClient.class)
@EnableConfigurationProperties(FenceLockShedLockProperties.class)
public final class FenceLockShedLockAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockProvider.class)
    FenceLockProvider fenceLockProvider(LockClient lockClient, FenceLockShedLockProperties properties) {
        FenceLockProvider.Builder builder = FenceLockProvider.builder(lockClient)
                .resourcePrefix(properties.getResourcePrefix())
                .pushFence(properties.isFenceWrites());
        Duration leaseTtl = properties.getLeaseTtl();
        if (leaseTtl != null) {
            builder.leaseTtl(leaseTtl);
        }
        return builder.build();
    }
}
