package dev.fencelock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LockClientSettingsTest {

    private static final ResourceName RESOURCE = ResourceName.of("order:42", ResourceName.DEFAULT_MAX_LENGTH);

    private final LockClientSettings settings = settings(Duration.ofSeconds(30), Duration.ofMinutes(1));

    @Test
    void ttlBelowOneSecondIsRefusedBecauseEtcdLeasesAreWholeSeconds() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> this.settings.ttlSeconds(Duration.ofMillis(999), RESOURCE))
                .withMessageContaining("lock 'order:42'")
                .withMessageContaining("whole seconds");
    }

    @Test
    void ttlFractionsAreRoundedUpNeverDown() {
        assertThat(this.settings.ttlSeconds(Duration.ofSeconds(1), RESOURCE)).isEqualTo(1);
        assertThat(this.settings.ttlSeconds(Duration.ofMillis(1001), RESOURCE)).isEqualTo(2);
        assertThat(this.settings.ttlSeconds(Duration.ofMillis(2500), RESOURCE)).isEqualTo(3);
        assertThat(this.settings.ttlSeconds(Duration.ofSeconds(2).plusNanos(1), RESOURCE))
                .isEqualTo(3);
    }

    @Test
    void ttlUpToTheMaximumIsAcceptedAndAboveItRefused() {
        assertThat(this.settings.ttlSeconds(Duration.ofMinutes(1), RESOURCE)).isEqualTo(60);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> this.settings.ttlSeconds(Duration.ofMinutes(1).plusMillis(1), RESOURCE))
                .withMessageContaining("lock 'order:42'")
                .withMessageContaining("max-lease-ttl");
    }

    @Test
    void requestsWithoutTtlGetTheDefault() {
        assertThat(this.settings.ttlSeconds(null, RESOURCE)).isEqualTo(30);
    }

    @Test
    void waitTimeoutUpToTheMaximumIsAcceptedAndZeroMeansTryOnce() {
        LockClientSettings bounded = LockClient.builder(new ScriptedLockBackend())
                .maxWaitTimeout(Duration.ofSeconds(20))
                .defaultWaitTimeout(Duration.ofSeconds(3))
                .build()
                .settings();
        assertThat(bounded.waitTimeout(Duration.ofSeconds(20), RESOURCE)).isEqualTo(Duration.ofSeconds(20));
        assertThat(bounded.waitTimeout(Duration.ZERO, RESOURCE)).isZero();
        assertThat(bounded.waitTimeout(null, RESOURCE)).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void waitTimeoutAboveTheMaximumOrNegativeIsRefused() {
        assertThatIllegalArgumentException()
                .isThrownBy(
                        () -> this.settings.waitTimeout(Duration.ofMinutes(5).plusMillis(1), RESOURCE))
                .withMessageContaining("lock 'order:42'")
                .withMessageContaining("max-wait-timeout");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> this.settings.waitTimeout(Duration.ofMillis(-1), RESOURCE))
                .withMessageContaining("negative");
    }

    @Test
    void defaultsOutsideTheBoundsAreRefusedWhenTheClientIsBuilt() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockClient.builder(new ScriptedLockBackend())
                        .defaultLeaseTtl(Duration.ofMillis(500))
                        .build())
                .withMessageContaining("the default")
                .withMessageContaining("whole seconds");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockClient.builder(new ScriptedLockBackend())
                        .maxLeaseTtl(Duration.ofSeconds(10))
                        .build())
                .withMessageContaining("max-lease-ttl");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LockClient.builder(new ScriptedLockBackend())
                        .maxWaitTimeout(Duration.ofSeconds(5))
                        .build())
                .withMessageContaining("Default wait timeout PT10S exceeds the maximum wait timeout PT5S");
    }

    @Test
    void builderRefusesValuesThatCannotBeBounds() {
        LockClientBuilder builder = LockClient.builder(new ScriptedLockBackend());
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.defaultLeaseTtl(Duration.ZERO))
                .withMessageContaining("defaultLeaseTtl must be positive");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.tryTimeout(Duration.ofSeconds(-1)))
                .withMessageContaining("tryTimeout must be positive");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.defaultWaitTimeout(Duration.ofSeconds(-1)))
                .withMessageContaining("defaultWaitTimeout must not be negative");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.maxWaitersPerResource(0))
                .withMessageContaining("at least 1");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.maxResourceLength(0))
                .withMessageContaining("at least 1");
    }

    @Test
    void theClientReportsTheSettingsItWasBuiltWith() {
        LockClientSettings built = LockClient.builder(new ScriptedLockBackend())
                .defaultLeaseTtl(Duration.ofSeconds(20))
                .defaultWaitTimeout(Duration.ofSeconds(3))
                .maxLeaseTtl(Duration.ofMinutes(2))
                .maxWaitTimeout(Duration.ofSeconds(40))
                .tryTimeout(Duration.ofSeconds(2))
                .maxWaitersPerResource(7)
                .maxResourceLength(64)
                .build()
                .settings();
        assertThat(built.defaultLeaseTtl()).isEqualTo(Duration.ofSeconds(20));
        assertThat(built.defaultWaitTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(built.maxLeaseTtl()).isEqualTo(Duration.ofMinutes(2));
        assertThat(built.maxWaitTimeout()).isEqualTo(Duration.ofSeconds(40));
        assertThat(built.tryTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(built.maxWaitersPerResource()).isEqualTo(7);
        assertThat(built.maxResourceLength()).isEqualTo(64);
    }

    private static LockClientSettings settings(Duration defaultLeaseTtl, Duration maxLeaseTtl) {
        return new LockClientSettings(
                defaultLeaseTtl,
                Duration.ofSeconds(10),
                maxLeaseTtl,
                Duration.ofMinutes(5),
                Duration.ofSeconds(5),
                1_000,
                ResourceName.DEFAULT_MAX_LENGTH);
    }
}
