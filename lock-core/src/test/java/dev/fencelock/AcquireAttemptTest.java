package dev.fencelock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.LockKind;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AcquireAttemptTest {

    private final LockClientSettings settings = LockClient.builder(new ScriptedLockBackend())
            .defaultWaitTimeout(Duration.ofSeconds(10))
            .tryTimeout(Duration.ofSeconds(5))
            .maxResourceLength(32)
            .build()
            .settings();

    @Test
    void aWaitingRequestQueuesForExactlyItsWaitTimeout() {
        long before = System.nanoTime();
        AcquireCommand command = AcquireAttempt.of(
                        LockRequest.builder("order:42")
                                .waitTimeout(Duration.ofSeconds(3))
                                .leaseTtl(Duration.ofMillis(1500))
                                .build(),
                        this.settings,
                        true)
                .command();
        assertThat(command.waitForRelease()).isTrue();
        assertThat(command.ttlSeconds()).isEqualTo(2);
        // Bracketed by clock readings around the call: exact on any machine, however slow.
        assertThat(command.deadlineNanos() - before)
                .isBetween(TimeUnit.SECONDS.toNanos(3), System.nanoTime() - before + TimeUnit.SECONDS.toNanos(3));
    }

    @Test
    void aTryLockIgnoresTheWaitTimeoutButGetsTheTryTimeoutForItsRoundTrip() {
        long before = System.nanoTime();
        AcquireCommand command = AcquireAttempt.of(
                        LockRequest.builder("order:42")
                                .waitTimeout(Duration.ofMinutes(10))
                                .build(),
                        this.settings,
                        false)
                .command();
        assertThat(command.waitForRelease()).isFalse();
        // Bracketed like the one above.
        assertThat(command.deadlineNanos() - before)
                .isBetween(TimeUnit.SECONDS.toNanos(5), System.nanoTime() - before + TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    void aZeroWaitTimeoutTriesOnce() {
        AcquireCommand command = AcquireAttempt.of(
                        LockRequest.builder("order:42")
                                .waitTimeout(Duration.ZERO)
                                .build(),
                        this.settings,
                        true)
                .command();
        assertThat(command.waitForRelease()).isFalse();
    }

    @Test
    void requestsWithoutIdOrNameGetAFreshIdAndTheUnnamedName() {
        AcquireAttempt first = AcquireAttempt.of(LockRequest.of("order:42"), this.settings, true);
        AcquireAttempt second = AcquireAttempt.of(LockRequest.of("order:42"), this.settings, true);
        assertThat(first.command().requestId())
                .isNotBlank()
                .isNotEqualTo(second.command().requestId());
        assertThat(first.lockName()).isEqualTo(LockEventListener.UNNAMED);
        assertThat(first.command().resource().value()).isEqualTo("order:42");
    }

    @Test
    void requestIdsMustBeShortPrintableAscii() {
        for (String invalid : new String[] {"", "x".repeat(129), "with space", "tab\t", "caf\u00e9"}) {
            assertThatThrownBy(() -> AcquireAttempt.of(
                            LockRequest.builder("order:42").requestId(invalid).build(), this.settings, true))
                    .as("request id %s", invalid)
                    .isInstanceOf(InvalidLockKeyException.class)
                    .hasMessageContaining("Request id for lock 'order:42'");
        }
        AcquireAttempt longest = AcquireAttempt.of(
                LockRequest.builder("order:42").requestId("~".repeat(128)).build(), this.settings, true);
        assertThat(longest.command().requestId()).hasSize(128);
    }

    @Test
    void resourceNamesAreCheckedAgainstTheConfiguredLength() {
        assertThatThrownBy(() -> AcquireAttempt.of(LockRequest.of("x".repeat(33)), this.settings, true))
                .isInstanceOf(InvalidLockKeyException.class);
    }

    @Test
    void theRequestsModeAndPermitsBecomeTheCommandsKind() {
        assertThat(kindOf(LockRequest.builder("r").build())).isEqualTo(LockKind.EXCLUSIVE);
        assertThat(kindOf(LockRequest.builder("r").mode(LockMode.SHARED).build()))
                .isEqualTo(LockKind.SHARED);
        assertThat(kindOf(LockRequest.builder("r").permits(3).build())).isEqualTo(LockKind.permits(3));
        // One permit is an exclusive lock: the keys of both look the same to every client.
        assertThat(kindOf(LockRequest.builder("r").permits(1).build())).isEqualTo(LockKind.EXCLUSIVE);
        assertThatThrownBy(() -> LockRequest.builder("r").permits(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockRequest.builder("r")
                        .mode(LockMode.SHARED)
                        .permits(2)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("SHARED");
    }

    private LockKind kindOf(LockRequest request) {
        return AcquireAttempt.of(request, this.settings, true).command().kind();
    }
}
