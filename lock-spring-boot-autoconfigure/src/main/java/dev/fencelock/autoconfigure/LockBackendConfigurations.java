package dev.fencelock.autoconfigure;

import dev.fencelock.LockClient;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.spi.LockBackend;
import io.etcd.jetcd.Client;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The lock backends, one per {@code fencelock.backend}. Each backs off when the application
 * defines its own {@link LockBackend} or {@link LockClient}.
 */
final class LockBackendConfigurations {

    private LockBackendConfigurations() {}

    @Configuration(proxyBeanMethods = false)
    @Conditional(OnLockBackendCondition.InMemory.class)
    static class InMemory {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean({LockBackend.class, LockClient.class})
        InMemoryLockBackend inMemoryLockBackend() {
            return new InMemoryLockBackend();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Client.class)
    @Conditional(OnLockBackendCondition.Etcd.class)
    static class Etcd {

        @Bean
        @ConditionalOnMissingBean(EtcdConnectionDetails.class)
        PropertiesEtcdConnectionDetails fenceLockEtcdConnectionDetails(FenceLockProperties properties) {
            return new PropertiesEtcdConnectionDetails(properties.getEtcd());
        }

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean({LockBackend.class, LockClient.class})
        EtcdLockBackend etcdLockBackend(FenceLockProperties properties, EtcdConnectionDetails connectionDetails) {
            FenceLockProperties.Etcd etcd = properties.getEtcd();
            EtcdLockBackend.Builder builder = EtcdLockBackend.builder()
                    .endpoints(connectionDetails.getEndpoints())
                    .namespace(properties.getNamespace())
                    .connectTimeout(etcd.getConnectTimeout())
                    .requestTimeout(etcd.getRequestTimeout())
                    .attemptTimeout(etcd.getAttemptTimeout());
            String username = connectionDetails.getUsername();
            String password = connectionDetails.getPassword();
            if (username != null && password != null) {
                builder.credentials(username, password);
            }
            if (etcd.getTls().isEnabled()) {
                builder.customizeClient(new EtcdClientTls(etcd.getTls()));
            }
            return builder.build();
        }
    }

    /** Fails with a clear message instead of a missing-bean error when jetcd is absent. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("io.etcd.jetcd.Client")
    @Conditional(OnLockBackendCondition.Etcd.class)
    static class EtcdClientMissing {

        @Bean
        @ConditionalOnMissingBean({LockBackend.class, LockClient.class})
        LockBackend etcdLockBackend() {
            throw new IllegalStateException("fencelock.backend is etcd, but the etcd client (io.etcd:jetcd-core) is"
                    + " not on the classpath. Depend on lock-spring-boot-starter (or add jetcd-core), set"
                    + " fencelock.backend=in-memory for tests, or set fencelock.enabled=false.");
        }
    }
}
