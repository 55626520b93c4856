package dev.fencelock.autoconfigure.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.application.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The {@code fencelock} contributor and Kubernetes probes: a pod whose etcd is down must stop
 * receiving traffic (readiness), not be restarted (liveness), since a restart does not bring etcd
 * back. Boot puts no contributor into either probe group by itself; readiness is one property.
 */
class FenceLockHealthProbesTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    ApplicationAvailabilityAutoConfiguration.class,
                    AvailabilityHealthContributorAutoConfiguration.class,
                    AvailabilityProbesAutoConfiguration.class,
                    HealthContributorAutoConfiguration.class,
                    HealthContributorRegistryAutoConfiguration.class,
                    HealthEndpointAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockHealthContributorAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory", "management.endpoint.health.probes.enabled=true");

    @Test
    void runWithProbesShouldKeepFenceLockOutOfLivenessAndReadinessUntilIncluded() {
        this.runner.run((context) -> {
            HealthEndpointGroups groups = context.getBean(HealthEndpointGroups.class);
            assertThat(groups.get("liveness").isMember("fencelock")).isFalse();
            assertThat(groups.get("readiness").isMember("fencelock")).isFalse();
            assertThat(groups.getPrimary().isMember("fencelock")).isTrue();
        });
    }

    @Test
    void runWithTheDocumentedReadinessGroupShouldCheckFenceLockForReadinessOnly() {
        this.runner
                .withPropertyValues("management.endpoint.health.group.readiness.include=readinessState,fencelock")
                .run((context) -> {
                    HealthEndpointGroups groups = context.getBean(HealthEndpointGroups.class);
                    assertThat(groups.get("readiness").isMember("fencelock")).isTrue();
                    assertThat(groups.get("readiness").isMember("readinessState"))
                            .isTrue();
                    assertThat(groups.get("liveness").isMember("fencelock")).isFalse();
                });
    }
}
