package dev.fencelock.autoconfigure;

import dev.fencelock.LockClient;
import dev.fencelock.LockClientBuilder;
import dev.fencelock.LockEventListener;
import dev.fencelock.interceptor.DistributedLockAdvisorConfiguration;
import dev.fencelock.spi.LockBackend;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Auto-configuration for FenceLock: a {@link LockBackend} (etcd, or in-memory for tests), the
 * {@link LockClient} over it, and the advisor that runs {@code @DistributedLock} methods under their lock
 * (lock-spring's {@link DistributedLockAdvisorConfiguration}, what {@code @EnableDistributedLocks} turns on
 * without Boot; the application needs neither).
 *
 * <p>Every {@link LockEventListener} bean (metrics, audit) receives the client's events, in
 * {@code @Order} order; {@link LockClientBuilderCustomizer} beans adjust the client's builder last.
 * Once the application has started, a store that does not answer is reported
 * with a warning ({@link LockStoreStartupCheck}).
 *
 * <p>Closing the context closes the client, which releases its locks and closes the backend
 * (revoking the etcd session lease), so a stopped instance does not keep locks until their
 * leases run out.
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "fencelock", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(FenceLockProperties.class)
@Import({
    LockBackendConfigurations.InMemory.class,
    LockBackendConfigurations.EtcdBackendMissing.class,
    LockBackendConfigurations.RedisBackendMissing.class,
    LockBackendConfigurations.ZooKeeperBackendMissing.class,
    DistributedLockAdvisorConfiguration.class
})
public final class FenceLockAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    LockClient lockClient(
            LockBackend backend,
            FenceLockProperties properties,
            ObjectProvider<LockEventListener> eventListeners,
            ObjectProvider<LockClientBuilderCustomizer> customizers) {
        LockClientBuilder builder = LockClient.builder(backend)
                .defaultLeaseTtl(properties.getLeaseTtl())
                .defaultWaitTimeout(properties.getWaitTimeout())
                .maxLeaseTtl(properties.getMaxLeaseTtl())
                .maxWaitTimeout(properties.getMaxWaitTimeout())
                .maxWaitersPerResource(properties.getMaxWaitersPerResource())
                .maxResourceLength(properties.getMaxResourceLength())
                .hotResources(properties.getHotResources().getSize())
                .hotResourcesHalfLife(properties.getHotResources().getHalfLife());
        List<LockEventListener> listeners = eventListeners.orderedStream().toList();
        if (!listeners.isEmpty()) {
            builder.eventListener((listeners.size() == 1) ? listeners.get(0) : LockEventListener.composite(listeners));
        }
        customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    LockStoreStartupCheck lockStoreStartupCheck(ObjectProvider<LockClient> lockClient, FenceLockProperties properties) {
        return new LockStoreStartupCheck(lockClient, properties.getHealth().getTimeout());
    }
}
