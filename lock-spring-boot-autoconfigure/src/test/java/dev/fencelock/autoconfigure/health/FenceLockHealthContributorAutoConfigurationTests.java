package dev.fencelock.autoconfigure.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.actuate.FenceLockHealthIndicator;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class FenceLockHealthContributorAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockHealthContributorAutoConfiguration.class,
                    HealthContributorAutoConfiguration.class,
                    HealthContributorRegistryAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory");

    @Test
    void runShouldRegisterUpContributorNamedFencelock() {
        this.runner.run((context) -> {
            assertThat(context).hasSingleBean(FenceLockHealthIndicator.class);
            HealthIndicator contributor = (HealthIndicator)
                    context.getBean(HealthContributorRegistry.class).getContributor("fencelock");
            assertThat(contributor).isSameAs(context.getBean(FenceLockHealthIndicator.class));
            Health health = contributor.health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails())
                    .containsEntry("backend", "in-memory")
                    .containsEntry("heldLocks", 0);
        });
    }

    @Test
    void runWhenDisabledShouldNotCreateIndicator() {
        this.runner
                .withPropertyValues("management.health.fencelock.enabled=false")
                .run((context) -> {
                    assertThat(context).doesNotHaveBean(FenceLockHealthIndicator.class);
                    assertThat(context.getBean(HealthContributorRegistry.class).getContributor("fencelock"))
                            .isNull();
                });
    }

    @Test
    void runWhenDefaultHealthIndicatorsAreDisabledShouldNotCreateIndicator() {
        this.runner
                .withPropertyValues("management.health.defaults.enabled=false")
                .run((context) -> assertThat(context).doesNotHaveBean(FenceLockHealthIndicator.class));
    }

    @Test
    void runWithUserIndicatorShouldBackOff() {
        this.runner
                .withBean(
                        "fencelockHealthIndicator",
                        HealthIndicator.class,
                        () -> () -> Health.up().build())
                .run((context) -> assertThat(context).doesNotHaveBean(FenceLockHealthIndicator.class));
    }

    @Test
    void runWithoutHealthModuleShouldNotCreateIndicator() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockHealthContributorAutoConfiguration.class))
                .withPropertyValues("fencelock.backend=in-memory")
                .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .run((context) -> assertThat(context).doesNotHaveBean(FenceLockHealthIndicator.class));
    }

    @Test
    void runWhenFenceLockIsDisabledShouldNotCreateIndicator() {
        this.runner
                .withPropertyValues("fencelock.enabled=false")
                .run((context) -> assertThat(context).doesNotHaveBean(FenceLockHealthIndicator.class));
    }

    @Test
    void runWithZeroTimeoutShouldFailNamingTheProperty() {
        this.runner
                .withPropertyValues("fencelock.health.timeout=0s")
                .run((context) ->
                        assertThat(context).getFailure().rootCause().hasMessageContaining("fencelock.health.timeout"));
    }
}
