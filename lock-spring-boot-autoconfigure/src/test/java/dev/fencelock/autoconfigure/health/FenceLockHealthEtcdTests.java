package dev.fencelock.autoconfigure.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.actuate.FenceLockHealthIndicator;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.etcd.EtcdMember;
import java.time.Duration;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The {@code fencelock} health contributor against a real three-member etcd cluster losing quorum. */
class FenceLockHealthEtcdTests {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(3);

    @AfterEach
    void resumeMembers() {
        etcd.cluster().members().stream().filter(EtcdMember::isPaused).forEach(EtcdMember::resume);
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockHealthContributorAutoConfiguration.class))
                .withPropertyValues(
                        "fencelock.etcd.endpoints=" + etcd.cluster().endpointsCsv(),
                        "fencelock.etcd.request-timeout=30s",
                        "fencelock.health.timeout=" + TIMEOUT.toMillis() + "ms",
                        "fencelock.health.cache-ttl=200ms");
    }

    @Test
    void healthyClusterShouldBeUpWithMembersLeaderAndSessions() {
        // A healthy cluster's answer, given as long as a loaded machine may need.
        runner().withPropertyValues("fencelock.health.timeout=30s").run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            try (LockLease lease = client.acquire(
                    LockRequest.builder("order:1").lockName("orders").build())) {
                Health health = context.getBean(FenceLockHealthIndicator.class).health();
                assertThat(health.getStatus()).isEqualTo(Status.UP);
                Map<String, Object> details = health.getDetails();
                assertThat(details.get("endpoints")).isEqualTo(etcd.endpoints());
                assertThat(details).containsEntry("memberCount", 3).containsEntry("heldLocks", 1);
                // etcd prints member ids in hex (etcdctl member list); the test cluster tells them in decimal.
                assertThat(details.get("leaderId"))
                        .isEqualTo(Long.toHexString(Long.parseUnsignedLong(etcd.cluster()
                                .awaitLeader(Duration.ofSeconds(30))
                                .memberId())));
                assertThat(details.get("members"))
                        .asInstanceOf(InstanceOfAssertFactories.list(String.class))
                        .containsExactlyInAnyOrderElementsOf(etcd.cluster().members().stream()
                                .map(EtcdMember::name)
                                .toList());
                assertThat(details.get("sessions"))
                        .asInstanceOf(InstanceOfAssertFactories.LIST)
                        .singleElement()
                        .asInstanceOf(InstanceOfAssertFactories.map(String.class, Object.class))
                        .containsEntry("leaseId", lease.leaseId())
                        .containsEntry("locks", 1)
                        .containsKey("validForMillis");
            }
        });
    }

    @Test
    void clusterWithoutQuorumShouldBeDownWithinTheTimeoutAndUpAgainOnceHealed() {
        runner().run((context) -> {
            FenceLockHealthIndicator indicator = context.getBean(FenceLockHealthIndicator.class);
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(
                            () -> assertThat(indicator.health().getStatus()).isEqualTo(Status.UP));
            long pausedAt = System.nanoTime();
            etcd.cluster().member(0).pause();
            etcd.cluster().member(1).pause();
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> {
                        long start = System.nanoTime();
                        Health health = indicator.health();
                        // Its own 1 s timeout ends it, not the requests' 30 s; 5 s is a loaded machine's slack.
                        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(TIMEOUT.plusSeconds(5));
                        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                        assertThat(health.getDetails()).containsKey("error");
                    });
            System.out.printf(
                    "fencelock health DOWN %d ms after quorum loss%n",
                    Duration.ofNanos(System.nanoTime() - pausedAt).toMillis());
            etcd.cluster().member(0).resume();
            etcd.cluster().member(1).resume();
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200))
                    .untilAsserted(
                            () -> assertThat(indicator.health().getStatus()).isEqualTo(Status.UP));
        });
    }
}
