package dev.fencelock.autoconfigure.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.FencingContext;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.shedlock.FenceLockProvider;
import dev.fencelock.shedlock.FencedSimpleLock;
import java.time.Duration;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class FenceLockShedLockAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockShedLockAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory");

    @Test
    void runWithShedLockShouldCreateAFencedLockProvider() {
        this.runner.run((context) -> {
            assertThat(context).hasSingleBean(LockProvider.class).hasSingleBean(FenceLockProvider.class);
            FencedSimpleLock lock = lock(context.getBean(LockProvider.class));
            try {
                assertThat(lock.resource()).isEqualTo("shedlock:report");
                assertThat(FencingContext.current())
                        .hasValueSatisfying(fence -> assertThat(fence.token()).isEqualTo(lock.fencingToken()));
            } finally {
                lock.unlock();
            }
        });
    }

    @Test
    void runWithPropertiesShouldApplyPrefixAndFencing() {
        this.runner
                .withPropertyValues(
                        "fencelock.shedlock.resource-prefix=jobs/",
                        "fencelock.shedlock.lease-ttl=5s",
                        "fencelock.shedlock.fence-writes=false")
                .run((context) -> {
                    FencedSimpleLock lock = lock(context.getBean(LockProvider.class));
                    try {
                        assertThat(lock.resource()).isEqualTo("jobs/report");
                        assertThat(FencingContext.current()).isEmpty();
                    } finally {
                        lock.unlock();
                    }
                });
    }

    @Test
    void runWithLeaseTtlAboveTheMaximumShouldFailAtStartup() {
        this.runner
                .withPropertyValues("fencelock.shedlock.lease-ttl=20m", "fencelock.max-lease-ttl=10m")
                .run((context) -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("max-lease-ttl PT10M"));
    }

    @Test
    void runWithUserLockProviderShouldBackOff() {
        this.runner
                .withBean("myLockProvider", LockProvider.class, () -> (configuration) -> Optional.empty())
                .run((context) -> {
                    assertThat(context).doesNotHaveBean(FenceLockProvider.class);
                    assertThat(context).hasSingleBean(LockProvider.class);
                });
    }

    @Test
    void runWithoutShedLockShouldNotCreateProvider() {
        this.runner
                .withClassLoader(new FilteredClassLoader(LockProvider.class))
                .run((context) -> assertThat(context).doesNotHaveBean(FenceLockProvider.class));
    }

    @Test
    void runWithoutLockClientShouldNotCreateProvider() {
        this.runner
                .withPropertyValues("fencelock.enabled=false")
                .run((context) -> assertThat(context).doesNotHaveBean(FenceLockProvider.class));
    }

    private static FencedSimpleLock lock(LockProvider provider) {
        return (FencedSimpleLock) provider.lock(
                        new LockConfiguration(ClockProvider.now(), "report", Duration.ofMinutes(1), Duration.ZERO))
                .orElseThrow();
    }
}
