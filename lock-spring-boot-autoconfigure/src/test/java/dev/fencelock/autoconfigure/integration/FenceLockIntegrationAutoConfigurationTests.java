package dev.fencelock.autoconfigure.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.integration.FenceLockRegistry;
import dev.fencelock.integration.FencedLock;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

class FenceLockIntegrationAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockIntegrationAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory");

    @Test
    void runWithSpringIntegrationShouldCreateAFencedLockRegistry() {
        this.runner.run((context) -> {
            assertThat(context).hasSingleBean(FenceLockRegistry.class);
            FencedLock lock = context.getBean(FenceLockRegistry.class).obtain("orders");
            lock.lock();
            try {
                assertThat(lock.resource()).isEqualTo("integration:orders");
                assertThat(FencingContext.current())
                        .hasValueSatisfying(fence -> assertThat(fence.token()).isEqualTo(lock.fencingToken()));
            } finally {
                lock.unlock();
            }
        });
    }

    @Test
    void runWithPropertiesShouldApplyPrefixLeaseTtlAndFencing() {
        this.runner
                .withPropertyValues(
                        "fencelock.integration.key-prefix=jobs/",
                        "fencelock.integration.lease-ttl=5s",
                        "fencelock.integration.fence-writes=false")
                .run((context) -> {
                    FenceLockRegistry registry = context.getBean(FenceLockRegistry.class);
                    FencedLock lock = registry.obtain("nightly");
                    lock.lock();
                    try {
                        assertThat(lock.resource()).isEqualTo("jobs/nightly");
                        assertThat(FencingContext.current()).isEmpty();
                        registry.renewLock("nightly", Duration.ofSeconds(5));
                        assertThatThrownBy(() -> registry.renewLock("nightly", Duration.ofSeconds(30)))
                                .isInstanceOf(UnsupportedOperationException.class);
                    } finally {
                        lock.unlock();
                    }
                });
    }

    @Test
    void runWithALeaseTtlAboveTheMaximumShouldFailAtStartupInsteadOfRefusingEveryLock() {
        this.runner
                .withPropertyValues("fencelock.integration.lease-ttl=20m", "fencelock.max-lease-ttl=10m")
                .run((context) -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("fencelock.integration.lease-ttl")
                        .hasMessageContaining("fencelock.max-lease-ttl"));
    }

    @Test
    void runWithUserLockRegistryShouldBackOff() {
        this.runner
                .withBean("myLockRegistry", LockRegistry.class, () -> (key) -> new ReentrantLock())
                .run((context) -> {
                    assertThat(context).doesNotHaveBean(FenceLockRegistry.class);
                    assertThat(context).hasSingleBean(LockRegistry.class);
                });
    }

    @Test
    void runWithoutSpringIntegrationShouldNotCreateRegistry() {
        this.runner
                .withClassLoader(new FilteredClassLoader(LockRegistry.class))
                .run((context) -> assertThat(context).doesNotHaveBean(FenceLockRegistry.class));
    }

    @Test
    void runWithoutLockClientShouldNotCreateRegistry() {
        this.runner
                .withPropertyValues("fencelock.enabled=false")
                .run((context) -> assertThat(context).doesNotHaveBean(FenceLockRegistry.class));
    }

    @Test
    void leaderInitiatorOnTheRegistryShouldPublishGrantsWhoseTokenTheApplicationCanRead() {
        this.runner.withUserConfiguration(LeaderConfiguration.class).run((context) -> {
            LeaderTokens tokens = context.getBean(LeaderTokens.class);
            Long token = tokens.granted.poll(10, TimeUnit.SECONDS);
            assertThat(token).isNotNull();
            assertThat(context.getBean(FenceLockRegistry.class)
                            .obtain("billing-leader")
                            .fencingToken())
                    .isEqualTo(token);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class LeaderConfiguration {

        @Bean
        LockRegistryLeaderInitiator leaderInitiator(FenceLockRegistry registry) {
            return new LockRegistryLeaderInitiator(registry, new DefaultCandidate("instance-1", "billing-leader"));
        }

        @Bean
        LeaderTokens leaderTokens(FenceLockRegistry registry) {
            return new LeaderTokens(registry);
        }
    }

    static class LeaderTokens {

        private final FenceLockRegistry registry;

        final BlockingQueue<Long> granted = new LinkedBlockingQueue<>();

        LeaderTokens(FenceLockRegistry registry) {
            this.registry = registry;
        }

        @EventListener
        void onGranted(OnGrantedEvent event) {
            this.granted.add(this.registry.obtain(event.getRole()).fencingToken());
        }
    }
}
