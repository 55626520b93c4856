package dev.fencelock.autoconfigure.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.actuate.FenceLockHealthIndicator;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The {@code fencelock} health warns before etcd runs out of room: an etcd member with a 16 MiB
 * quota is filled, one 256 KiB key at a time, until it refuses a write with its {@code NOSPACE}
 * alarm. The health, asked after every write, turns WARNING at 80% of the quota, while etcd still
 * takes writes, and DOWN once the alarm is raised (no lock can be taken then).
 */
class FenceLockHealthCapacityEtcdTests {

    private static final long QUOTA = 16L * 1024 * 1024;

    /** More than the quota can hold, so the loop ends by etcd's refusal, never by running out of writes. */
    private static final int MAX_WRITES = 2 * (int) (QUOTA / (256 * 1024));

    @RegisterExtension
    static final EtcdClusterExtension etcd =
            EtcdClusterExtension.of(EtcdCluster.builder().members(1).extraArgument("--quota-backend-bytes=" + QUOTA));

    @Test
    void healthTurnsWarningBeforeEtcdRefusesWritesAndDownOnceItDoes() throws Exception {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockHealthContributorAutoConfiguration.class))
                .withPropertyValues(
                        "fencelock.etcd.endpoints=" + etcd.cluster().endpointsCsv(),
                        "fencelock.etcd.quota-backend-bytes=16MB",
                        "fencelock.health.timeout=10s",
                        "fencelock.health.cache-ttl=0s")
                .run((context) -> {
                    FenceLockHealthIndicator indicator = context.getBean(FenceLockHealthIndicator.class);
                    List<String> statuses = new ArrayList<>();
                    Health firstWarning = null;
                    String refusal = null;
                    Random random = new Random(42);
                    try (Client filler = Client.builder()
                            .endpoints(etcd.endpoints().toArray(String[]::new))
                            .build()) {
                        Health start = indicator.health();
                        assertThat(start.getStatus()).isEqualTo(Status.UP);
                        statuses.add("UP");
                        for (int i = 0; i < MAX_WRITES && refusal == null; i++) {
                            byte[] value = new byte[256 * 1024];
                            random.nextBytes(value);
                            try {
                                filler.getKVClient()
                                        .put(bytes("/filler/" + i), ByteSequence.from(value))
                                        .get(30, TimeUnit.SECONDS);
                            } catch (ExecutionException ex) {
                                refusal = String.valueOf(ex.getCause().getMessage());
                                break;
                            }
                            Health health = indicator.health();
                            statuses.add(health.getStatus().getCode());
                            if (firstWarning == null && health.getStatus().equals(FenceLockHealthIndicator.WARNING)) {
                                firstWarning = health;
                            }
                        }
                    }
                    System.out.printf("health after each 256 KiB write until etcd refused one: %s%n", statuses);
                    assertThat(refusal)
                            .as("etcd's refusal of a write past its quota")
                            .contains("space exceeded");
                    assertThat(firstWarning)
                            .as("a WARNING while etcd still took writes; statuses: " + statuses)
                            .isNotNull();
                    // Never DOWN while etcd took writes: the warning came first.
                    assertThat(statuses).doesNotContain("DOWN");
                    Map<String, Object> capacity = capacityOf(firstWarning);
                    assertThat((Double) capacity.get("dbSizeRatio"))
                            .isGreaterThanOrEqualTo(0.8)
                            .isLessThan(1.0);
                    assertThat(capacity).containsEntry("quotaBytes", QUOTA);
                    assertThat(firstWarning.getDetails().get("warnings"))
                            .asInstanceOf(InstanceOfAssertFactories.list(String.class))
                            .singleElement()
                            .asString()
                            .contains("of the quota of 16.0 MiB");

                    Health full = indicator.health();
                    assertThat(full.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(full.getDetails().get("error"))
                            .asString()
                            .contains("NOSPACE")
                            .contains("no lock can be taken");
                    assertThat(capacityOf(full).get("alarms"))
                            .asInstanceOf(InstanceOfAssertFactories.list(String.class))
                            .singleElement()
                            .asString()
                            .startsWith("NOSPACE on member ");
                });
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> capacityOf(Health health) {
        return (Map<String, Object>) health.getDetails().get("capacity");
    }

    private static ByteSequence bytes(String value) {
        return ByteSequence.from(value, StandardCharsets.UTF_8);
    }
}
