package dev.fencelock.observation;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.memory.InMemoryLockBackend;
import io.micrometer.observation.tck.TestObservationRegistry;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Observations for code that uses the {@link LockClient} directly. */
class LockObservationsTest {

    private final TestObservationRegistry registry = TestObservationRegistry.create();

    private final LockObservations observations = new LockObservations(this.registry);

    private final LockClient client =
            LockClient.builder(new InMemoryLockBackend()).build();

    @AfterEach
    void close() {
        this.client.close();
    }

    @Test
    void acquireAndHoldingAreObservedWithTheLockNameAsTheLowCardinalityKey() {
        LockRequest request = LockRequest.builder("order:42").lockName("order").build();
        try (LockLease lease = this.observations.acquire(this.client, request)) {
            String token = Long.toString(lease.fencingToken());
            assertThat(this.observations.holding(lease, () -> "shipped")).isEqualTo("shipped");

            assertThat(this.registry)
                    .hasObservationWithNameEqualTo("fencelock.acquisition")
                    .that()
                    .hasLowCardinalityKeyValue("lock", "order")
                    .hasLowCardinalityKeyValue("outcome", "acquired")
                    .hasHighCardinalityKeyValue("fencelock.resource", "order:42")
                    .hasHighCardinalityKeyValue("fencelock.token", token)
                    .hasBeenStopped();
            assertThat(this.registry)
                    .hasObservationWithNameEqualTo("fencelock.hold")
                    .that()
                    .hasContextualNameEqualTo("locked order")
                    .hasLowCardinalityKeyValue("lock", "order")
                    .hasHighCardinalityKeyValue("fencelock.token", token)
                    .hasBeenStopped();
        }
    }

    @Test
    void failedAcquireEndsWithItsOutcomeAndError() {
        try (LockLease held = this.client.acquire(LockRequest.of("order:7"))) {
            LockRequest busy = LockRequest.builder("order:7")
                    .lockName("order")
                    .waitTimeout(Duration.ZERO)
                    .build();
            assertThatExceptionOfType(LockAcquisitionTimeoutException.class)
                    .isThrownBy(() -> this.observations.acquire(this.client, busy));
        }
        assertThat(this.registry)
                .hasSingleObservationThat()
                .hasNameEqualTo("fencelock.acquisition")
                .hasLowCardinalityKeyValue("outcome", "timeout")
                .hasError()
                .hasBeenStopped();
    }
}
