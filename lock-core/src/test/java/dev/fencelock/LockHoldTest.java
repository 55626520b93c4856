package dev.fencelock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencelock.spi.BackendLock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LockHoldTest {

    private final ScriptedLockBackend backend = new ScriptedLockBackend();

    private final RecordingEventListener events = new RecordingEventListener();

    /** Callback tasks the client handed over, run only when a test says so. */
    private final List<Runnable> callbacks = new CopyOnWriteArrayList<>();

    private final LockClient client = LockClient.builder(this.backend)
            .eventListener(this.events)
            .callbackExecutor(this.callbacks::add)
            .tryTimeout(Duration.ofMinutes(1))
            .build();

    @AfterEach
    void closeClient() {
        this.client.close();
    }

    @Test
    void releaseReturnsOnlyOnceTheStoreDeletedTheLock() throws Exception {
        LockLease lease = granted();
        CompletableFuture<Boolean> deletion = new CompletableFuture<>();
        this.backend.nextDeletion = deletion;

        CompletableFuture<Boolean> releasing = CompletableFuture.supplyAsync(lease::release);
        await().atMost(Duration.ofSeconds(10)).until(() -> this.backend.released.size() == 1);
        assertThat(lease.isValid()).isFalse();
        assertThat(releasing).isNotDone();

        deletion.complete(true);
        assertThat(releasing.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(this.backend.releasedDeferred).isEmpty();
        assertThat(this.events.of("released")).hasSize(1);
    }

    @Test
    void releaseAsyncReturnsAtOnceAndLetsTheDeletionBeDeferred() throws Exception {
        LockLease lease = granted();
        CompletableFuture<Boolean> deletion = new CompletableFuture<>();
        this.backend.nextDeletion = deletion;

        CompletableFuture<Boolean> released = lease.releaseAsync();

        assertThat(lease.isValid()).isFalse();
        assertThat(released).isNotDone();
        assertThat(this.backend.releasedDeferred).hasSize(1);
        assertThat(this.backend.released).isEmpty();
        assertThat(this.events.of("released")).isEmpty();
        deletion.complete(true);
        assertThat(released.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(this.events.of("released")).hasSize(1);
        assertThat(lease.releaseAsync().get(10, TimeUnit.SECONDS)).isFalse();
    }

    @Test
    void aFailedDeletionStillCountsAsReleasedBecauseTheBackendRetriesIt() throws Exception {
        this.backend.nextDeletion = CompletableFuture.failedFuture(new LockBackendUnavailableException("down"));
        assertThat(granted().release()).isTrue();
        assertThat(granted().releaseAsync().get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void releaseGivesUpWaitingForTheStoreAfterTheTryTimeout() {
        try (LockClient impatient = LockClient.builder(this.backend)
                .tryTimeout(Duration.ofMillis(50))
                .build()) {
            CompletableFuture<LockLease> pending = impatient.acquireAsync(LockRequest.of("order:42"));
            this.backend.grant(0);
            this.backend.nextDeletion = new CompletableFuture<>();
            assertThat(pending.join().release()).isTrue();
        }
    }

    @Test
    void releasingALostLockReportsFalseButStillDeletesIt() {
        LockLease lease = granted();
        BackendLock lock = this.backend.acquires.get(0).future().join();
        lock.markLost(new LockLostException("session expired"));

        assertThat(lease.release()).isFalse();
        assertThat(this.backend.released).containsExactly(lock);
    }

    @Test
    void renewExtendsTheLeaseAndReportsIt() {
        LockLease lease = granted();
        this.backend.nextRenewal = CompletableFuture.completedFuture(System.nanoTime() + TimeUnit.MINUTES.toNanos(3));

        Instant expiresAt = lease.renew();

        assertThat(expiresAt).isAfter(Instant.now().plus(Duration.ofMinutes(2)));
        assertThat(this.events.of("renewed"))
                .singleElement()
                .satisfies(event -> assertThat(event.cause()).isNull());
    }

    @Test
    void aFailedRenewalIsThrownAndReported() {
        LockLease lease = granted();
        LockLostException gone = new LockLostException("Lock 'order:42' is gone");
        this.backend.nextRenewal = CompletableFuture.failedFuture(gone);

        assertThatThrownBy(lease::renew).isSameAs(gone);
        assertThat(this.events.of("renewed"))
                .singleElement()
                .satisfies(event -> assertThat(event.cause()).isSameAs(gone));
    }

    @Test
    void aReleasedHoldCannotBeRenewed() {
        LockLease lease = granted();
        lease.release();

        assertThatThrownBy(lease::renew)
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("already released by this holder");
        assertThat(this.backend.renewed).isEmpty();
    }

    @Test
    void lostListenersRunOnTheCallbackExecutor() {
        LockLease lease = granted();
        AtomicReference<LockLostException> seen = new AtomicReference<>();
        lease.onLost(seen::set);
        LockLostException cause = new LockLostException("Lock 'order:42' was deleted");

        this.backend.acquires.get(0).future().join().markLost(cause);

        assertThat(lease.isValid()).isFalse();
        // Neither the application's listener nor the event listeners run on the detecting thread,
        // which is the backend's and keeps leases alive.
        assertThat(seen.get()).as("not run on the detecting thread").isNull();
        assertThat(this.events.of("lost")).isEmpty();
        assertThat(this.callbacks).hasSize(2);
        this.callbacks.forEach(Runnable::run);
        assertThat(seen.get()).isSameAs(cause);
        assertThat(this.events.of("lost"))
                .singleElement()
                .satisfies(event -> assertThat(event.cause()).isSameAs(cause));
    }

    @Test
    void aListenerAddedAfterTheLossIsHandedToTheExecutorAtOnce() {
        LockLease lease = granted();
        this.backend.acquires.get(0).future().join().markLost(new LockLostException("gone"));
        AtomicReference<LockLostException> seen = new AtomicReference<>();

        lease.onLost(seen::set);

        assertThat(this.callbacks).hasSize(2); // the lost event, and this listener at once
        this.callbacks.forEach(Runnable::run);
        assertThat(seen.get()).hasMessage("gone");
    }

    @Test
    void aReenteredLockReportsItsLossOnce() {
        LockRequest request =
                LockRequest.builder("order:42").requestId("owner-1").build();
        CompletableFuture<LockLease> outer = this.client.acquireAsync(request);
        this.backend.grant(0);
        LockLease inner = this.client.acquire(request);

        this.backend.acquires.get(0).future().join().markLost(new LockLostException("gone"));

        assertThat(outer.join().isValid()).isFalse();
        assertThat(inner.isValid()).isFalse();
        this.callbacks.forEach(Runnable::run);
        assertThat(this.events.of("lost")).hasSize(1);
    }

    private LockLease granted() {
        CompletableFuture<LockLease> lease = this.client.acquireAsync(LockRequest.of("order:42"));
        this.backend.grant(this.backend.acquires.size() - 1);
        return lease.join();
    }
}
