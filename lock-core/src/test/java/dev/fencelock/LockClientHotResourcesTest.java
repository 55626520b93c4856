package dev.fencelock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.memory.InMemoryLockStore;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LockClientHotResourcesTest {

    private final InMemoryLockStore store = new InMemoryLockStore();

    private final LockClient holder =
            LockClient.builder(InMemoryLockBackend.sharing(this.store)).build();

    private final LockClient waiter = LockClient.builder(InMemoryLockBackend.sharing(this.store))
            .hotResources(2)
            .build();

    @AfterEach
    void close() {
        this.holder.close();
        this.waiter.close();
        this.store.close();
    }

    @Test
    void aResourceItsCallersWaitForRanksFirstWithItsWaitersAndBusyEnds() throws Exception {
        long started = System.nanoTime();
        LockLease held = this.holder.acquire(LockRequest.of("order:1"));
        this.waiter.acquire(LockRequest.of("order:2")).release();
        CompletableFuture<LockLease> waiting = this.waiter.acquireAsync(LockRequest.builder("order:1")
                .waitTimeout(Duration.ofMillis(300))
                .build());
        assertThatThrownBy(() -> this.waiter.acquire(LockRequest.builder("order:1")
                        .waitTimeout(Duration.ofMillis(300))
                        .build()))
                .isInstanceOf(LockAcquisitionTimeoutException.class);
        await().atMost(Duration.ofSeconds(10)).until(waiting::isDone);
        held.release();

        assertThat(this.waiter.hotResourceRanks()).isEqualTo(2);
        assertThat(this.waiter.hotResources()).first().satisfies(hot -> {
            assertThat(hot.rank()).isEqualTo(1);
            assertThat(hot.resource()).isEqualTo("order:1");
            assertThat(hot.waitSeconds()).isGreaterThanOrEqualTo(0.55);
            assertThat(hot.peakWaiting()).isEqualTo(2);
            // Decayed with a one-minute half-life over no more than the time this test has run.
            assertThat(hot.acquisitions()).isBetween(decayed(2.0, started), 2.0);
            assertThat(hot.busy()).isBetween(decayed(2.0, started), 2.0);
            assertThat(hot.waitingNow()).isZero();
        });
    }

    @Test
    void callersInProgressShowAsWaitingNow() throws Exception {
        long started = System.nanoTime();
        LockLease held = this.holder.acquire(LockRequest.of("order:3"));
        assertThat(this.waiter.tryAcquire("order:3")).isEmpty();
        CompletableFuture<LockLease> waiting = this.waiter.acquireAsync(LockRequest.builder("order:3")
                .waitTimeout(Duration.ofSeconds(10))
                .build());

        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(this.waiter.hotResources())
                        .singleElement()
                        .satisfies(hot -> assertThat(hot.waitingNow()).isEqualTo(1)));
        held.release();
        waiting.get().release();
        assertThat(this.waiter.hotResources()).singleElement().satisfies(hot -> {
            assertThat(hot.waitingNow()).isZero();
            assertThat(hot.busy()).isBetween(decayed(1.0, started), 1.0);
        });
    }

    /**
     * {@code count} after a one-minute half-life's decay over the time since {@code started}, plus one
     * decay step: the least it can show, however slow the machine. It was counted after {@code
     * started}, but the first decay after that spans from the decay before it, up to a step earlier.
     */
    private static double decayed(double count, long started) {
        double minutes = (System.nanoTime() - started + HotResources.DECAY_STEP_NANOS) / 60e9;
        return count * Math.pow(0.5, minutes);
    }
}
