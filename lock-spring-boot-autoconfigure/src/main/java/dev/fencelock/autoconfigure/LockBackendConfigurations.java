package dev.fencelock.autoconfigure;

import dev.fencelock.LockClient;
import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.spi.LockBackend;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The lock backends that need no module of their own: in-memory, and a clear failure when the
 * etcd, Redis or ZooKeeper module is missing. The backends themselves are {@code
 * FenceLockEtcdAutoConfiguration}'s, {@code FenceLockRedisAutoConfiguration}'s and {@code
 * FenceLockZooKeeperAutoConfiguration}'s.
 * Each backs off when the application defines its own {@link LockBackend} or {@link LockClient}.
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

    /** Fails with a clear message instead of a missing-bean error when the etcd backend is absent. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("dev.fencelock.etcd.EtcdLockBackend")
    @Conditional(OnLockBackendCondition.Etcd.class)
    static class EtcdBackendMissing {

        @Bean
        @ConditionalOnMissingBean({LockBackend.class, LockClient.class})
        LockBackend etcdLockBackend() {
            throw new LockBackendMissingException("etcd", "dev.fencelock:lock-etcd");
        }
    }

    /** Fails with a clear message instead of a missing-bean error when the Redis backend is absent. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("dev.fencelock.redis.RedisLockBackend")
    @Conditional(OnLockBackendCondition.Redis.class)
    static class RedisBackendMissing {

        @Bean
        @ConditionalOnMissingBean({LockBackend.class, LockClient.class})
        LockBackend redisLockBackend() {
            throw new LockBackendMissingException("redis", "dev.fencelock:lock-redis");
        }
    }

    /** Fails with a clear message instead of a missing-bean error when the ZooKeeper backend is absent. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("dev.fencelock.zookeeper.ZooKeeperLockBackend")
    @Conditional(OnLockBackendCondition.ZooKeeper.class)
    static class ZooKeeperBackendMissing {

        @Bean
        @ConditionalOnMissingBean({LockBackend.class, LockClient.class})
        LockBackend zooKeeperLockBackend() {
            throw new LockBackendMissingException("zookeeper", "dev.fencelock:lock-zookeeper");
        }
    }
}
