package dev.fencelock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import net.javacrumbs.shedlock.core.LockConfiguration;
import org.junit.jupiter.api.Test;

/** How ShedLock's deadlines become the whole-second etcd lease that outlives a dead holder. */
class FenceLockProviderLeaseTtlTest {

    private static final Duration PROVIDER_TTL = Duration.ofSeconds(30);

    private static final Duration MAX_LEASE_TTL = Duration.ofMinutes(10);

    @Test
    void subSecondLockAtMostForGetsAOneSecondLease() {
        assertThat(ttl(Duration.ofMillis(200), Duration.ZERO)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void fractionalSecondsAreRoundedUpNeverDown() {
        assertThat(ttl(Duration.ofMillis(1200), Duration.ZERO)).isEqualTo(Duration.ofSeconds(2));
        assertThat(ttl(Duration.ofMinutes(5), Duration.ofMillis(30_001))).isEqualTo(Duration.ofSeconds(31));
    }

    @Test
    void shortLockAtMostForShortensTheLease() {
        assertThat(ttl(Duration.ofSeconds(5), Duration.ZERO)).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void longLockAtMostForKeepsTheProvidersLease() {
        assertThat(ttl(Duration.ofHours(2), Duration.ZERO)).isEqualTo(PROVIDER_TTL);
    }

    @Test
    void longLockAtLeastForLengthensTheLease() {
        assertThat(ttl(Duration.ofMinutes(15), Duration.ofMinutes(2))).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void lockAtLeastForAboveTheMaximumLeaseTtlFailsNamingLockAndProperty() {
        assertThatThrownBy(() -> ttl(Duration.ofMinutes(20), Duration.ofMinutes(15)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtLeastFor PT15M")
                .hasMessageContaining("'report'")
                .hasMessageContaining("max-lease-ttl is PT10M")
                .hasMessageContaining("raise fencelock.max-lease-ttl or shorten lockAtLeastFor");
    }

    private static Duration ttl(Duration lockAtMostFor, Duration lockAtLeastFor) {
        LockConfiguration configuration = new LockConfiguration(Instant.now(), "report", lockAtMostFor, lockAtLeastFor);
        return FenceLockProvider.leaseTtl(configuration, PROVIDER_TTL, MAX_LEASE_TTL);
    }
}
