package dev.fencelock.autoconfigure.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.actuate.FenceLockHealthIndicator;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.LockBackendMissingException;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.autoconfigure.health.FenceLockHealthContributorAutoConfiguration;
import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.redis.RedisLockBackend;
import dev.fencelock.spi.LockBackend;
import dev.fencelock.test.redis.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class FenceLockRedisAutoConfigurationTests {

    private static RedisServer server;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataRedisAutoConfiguration.class,
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockRedisAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockHealthContributorAutoConfiguration.class,
                    HealthContributorAutoConfiguration.class,
                    HealthContributorRegistryAutoConfiguration.class));

    @BeforeAll
    static void startServer() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void runWithBackendRedisShouldLockWhereSpringDataRedisPointsAndSayTheTokensDoNotFence() {
        this.runner
                .withPropertyValues(
                        "fencelock.backend=redis",
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + server.port())
                .run(context -> {
                    assertThat(context).hasSingleBean(RedisLockBackend.class);
                    try (LockLease lease = context.getBean(LockClient.class).acquire(LockRequest.of("order:1"))) {
                        assertThat(lease.isFencing()).isFalse();
                    }
                    Health health =
                            context.getBean(FenceLockHealthIndicator.class).health();
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    assertThat(health.getDetails())
                            .containsEntry("backend", "redis")
                            .containsEntry("fencingTokens", false)
                            .containsEntry("endpoint", "127.0.0.1:" + server.port());
                });
    }

    @Test
    void runWithAnotherBackendShouldNotCreateARedisBackend() {
        this.runner
                .withPropertyValues("fencelock.backend=in-memory", "spring.data.redis.port=" + server.port())
                .run(context -> {
                    assertThat(context).doesNotHaveBean(RedisLockBackend.class);
                    assertThat(context).hasSingleBean(InMemoryLockBackend.class);
                });
    }

    @Test
    void runWhenTheUserDefinesABackendShouldBackOff() {
        this.runner
                .withPropertyValues("fencelock.backend=redis", "spring.data.redis.port=" + server.port())
                .withBean(LockBackend.class, InMemoryLockBackend::new)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(RedisLockBackend.class);
                    assertThat(context).hasSingleBean(LockBackend.class);
                });
    }

    @Test
    void runWhenLockRedisIsAbsentShouldFailNamingTheModule() {
        this.runner
                .withPropertyValues("fencelock.backend=redis")
                .withClassLoader(new FilteredClassLoader(RedisLockBackend.class))
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasRootCauseInstanceOf(LockBackendMissingException.class)
                        .rootCause()
                        .hasMessageContaining("dev.fencelock:lock-redis"));
    }
}
