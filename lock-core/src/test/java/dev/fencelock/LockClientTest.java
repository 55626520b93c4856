package dev.fencelock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencelock.spi.BackendLock;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LockClientTest {

    private final ScriptedLockBackend backend = new ScriptedLockBackend();

    private final RecordingEventListener events = new RecordingEventListener();

    private final LockClient client = LockClient.builder(this.backend)
            .eventListener(this.events)
            .maxWaitersPerResource(2)
            .callbackExecutor(Runnable::run)
            .build();

    @AfterEach
    void closeClient() {
        this.client.close();
    }

    @Test
    void reentryWithTheSameRequestIdIsANewHoldOnTheSameLockWithoutAStoreCall() {
        LockRequest request =
                LockRequest.builder("order:42").requestId("owner-1").build();
        LockLease outer = granted(request);
        LockLease inner = this.client.acquire(request);

        assertThat(inner).isNotSameAs(outer);
        assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
        assertThat(inner.leaseId()).isEqualTo(outer.leaseId());
        assertThat(inner.requestId()).isEqualTo("owner-1");
        assertThat(this.backend.acquires).hasSize(1);
        assertThat(this.events.of("acquired"))
                .extracting(RecordingEventListener.Event::reentered)
                .containsExactly(false, true);
        assertThat(this.client.heldLocks())
                .singleElement()
                .satisfies(held -> assertThat(held.holds()).isEqualTo(2));
        assertThat(this.client.heldCount()).isEqualTo(1);
    }

    @Test
    void onlyTheLastReleaseOfAReenteredLockDeletesIt() {
        LockRequest request =
                LockRequest.builder("order:42").requestId("owner-1").build();
        LockLease outer = granted(request);
        BackendLock lock = this.backend.acquires.get(0).future().join();
        LockLease inner = this.client.acquire(request);

        assertThat(inner.release()).isTrue();
        assertThat(inner.isValid()).isFalse();
        assertThat(outer.isValid()).isTrue();
        assertThat(this.backend.released).isEmpty();
        assertThat(this.client.heldLocks())
                .singleElement()
                .satisfies(held -> assertThat(held.holds()).isEqualTo(1));

        assertThat(outer.release()).isTrue();
        assertThat(this.backend.released).containsExactly(lock);
        assertThat(this.client.heldLocks()).isEmpty();
        assertThat(this.events.of("released")).hasSize(1);
    }

    @Test
    void aHoldReleasedTwiceReportsFalseAndLeavesTheOtherHoldsAlone() throws Exception {
        LockRequest request =
                LockRequest.builder("order:42").requestId("owner-1").build();
        LockLease outer = granted(request);
        LockLease inner = this.client.acquire(request);

        assertThat(inner.release()).isTrue();
        assertThat(inner.release()).isFalse();
        assertThat(inner.releaseAsync().get(10, TimeUnit.SECONDS)).isFalse();
        assertThat(outer.isValid()).isTrue();
        assertThat(this.client.heldLocks())
                .singleElement()
                .satisfies(held -> assertThat(held.holds()).isEqualTo(1));
        assertThat(this.backend.released).isEmpty();
        outer.close();
        assertThat(this.backend.released).hasSize(1);
    }

    @Test
    void retriesInFlightTogetherShareOneAcquisitionThatIsLostOnce() {
        // Both attempts reach the store before either is granted; the store hands both the same lock.
        LockRequest request =
                LockRequest.builder("order:42").requestId("owner-1").build();
        CompletableFuture<LockLease> first = this.client.acquireAsync(request);
        CompletableFuture<LockLease> retry = this.client.acquireAsync(request);
        BackendLock lock = this.backend.grant(0);
        this.backend.grant(1, lock);

        assertThat(this.client.heldLocks())
                .singleElement()
                .satisfies(held -> assertThat(held.holds()).isEqualTo(2));
        assertThat(first.join().release()).isTrue();
        assertThat(this.backend.released).isEmpty();
        lock.markLost(new LockLostException("gone"));
        assertThat(retry.join().isValid()).isFalse();
        assertThat(this.events.of("lost")).hasSize(1);
    }

    @Test
    void aRetryGrantedTheLockItsFirstAttemptAlreadyReleasedStartsOverForANewOne() {
        // Both attempts reach the store; the first is granted and released before the retry's grant
        // arrives, which is still the lock the store had: taking it would be holding a deleted key.
        LockRequest request =
                LockRequest.builder("order:42").requestId("owner-1").build();
        CompletableFuture<LockLease> first = this.client.acquireAsync(request);
        CompletableFuture<LockLease> retry = this.client.acquireAsync(request);
        BackendLock lock = this.backend.grant(0);
        assertThat(first.join().release()).isTrue();
        this.backend.grant(1, lock);

        assertThat(retry).as("the retry granted the released lock").isNotDone();
        assertThat(this.backend.acquires).hasSize(3);
        BackendLock fresh = this.backend.grant(2);
        assertThat(retry.join().fencingToken()).isEqualTo(fresh.fencingToken());
        assertThat(retry.join().isValid()).isTrue();
        assertThat(this.backend.released).containsExactly(lock);
        assertThat(this.client.heldLocks())
                .singleElement()
                .satisfies(held -> assertThat(held.fencingToken()).isEqualTo(fresh.fencingToken()));
    }

    @Test
    void aLostLockIsNotReenteredButAcquiredFromTheStoreAgain() {
        LockRequest request =
                LockRequest.builder("order:42").requestId("owner-1").build();
        granted(request);
        this.backend.acquires.get(0).future().join().markLost(new LockLostException("deleted by an operator"));

        CompletableFuture<LockLease> again = this.client.acquireAsync(request);
        assertThat(this.backend.acquires).hasSize(2);
        assertThat(again).isNotDone();
        assertThat(this.client.heldLocks()).isEmpty();
    }

    @Test
    void callersBeyondTheWaiterLimitAreRefusedWithoutAStoreCall() {
        LockRequest request = LockRequest.of("hot");
        this.client.acquireAsync(request);
        this.client.acquireAsync(request);

        assertThat(this.client.acquireAsync(request))
                .failsWithin(Duration.ofSeconds(10))
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(LockQueueFullException.class);
        assertThatThrownBy(() -> this.client.acquire(request)).isInstanceOf(LockQueueFullException.class);
        assertThat(this.backend.acquires).hasSize(2);
        assertThat(this.client.waitingCount()).isEqualTo(2);
        // Other resources are not affected by a full queue.
        this.client.acquireAsync(LockRequest.of("cold"));
        assertThat(this.client.waitingCount()).isEqualTo(3);
    }

    @Test
    void waiterCountsReturnToZeroAfterSuccessFailureAndCancel() {
        CompletableFuture<LockLease> granted = this.client.acquireAsync(LockRequest.of("hot"));
        CompletableFuture<LockLease> failed = this.client.acquireAsync(LockRequest.of("hot"));
        assertThat(this.client.waitingCount()).isEqualTo(2);

        this.backend.grant(0);
        assertThat(this.client.waitingCount()).isEqualTo(1);
        LockAcquisitionTimeoutException busy = new LockAcquisitionTimeoutException("Lock 'hot' stayed busy");
        this.backend.acquires.get(1).future().completeExceptionally(new CompletionException(busy));
        assertThat(this.client.waitingCount()).isZero();
        assertThat(granted).isCompleted();
        assertThat(failed).isCompletedExceptionally();
        assertThat(this.events.of("acquireFailed"))
                .singleElement()
                .satisfies(event -> assertThat(event.cause()).isSameAs(busy));

        CompletableFuture<LockLease> cancelled = this.client.acquireAsync(LockRequest.of("hot"));
        assertThat(cancelled.cancel(true)).isTrue();
        assertThat(this.backend.acquires.get(2).future()).isCancelled();
        assertThat(this.client.waitingCount()).isZero();

        // Both places on the resource are free again.
        this.client.acquireAsync(LockRequest.of("hot"));
        this.client.acquireAsync(LockRequest.of("hot"));
        assertThat(this.backend.acquires).hasSize(5);
    }

    @Test
    void aLockGrantedAfterTheCallerGaveUpIsHandedStraightBack() {
        this.backend.ignoreCancel = true;
        CompletableFuture<LockLease> abandoned = this.client.acquireAsync(LockRequest.of("order:42"));
        abandoned.cancel(true);
        assertThat(this.client.waitingCount()).isEqualTo(1);

        BackendLock lock = this.backend.grant(0);

        assertThat(this.backend.released).containsExactly(lock);
        assertThat(this.client.heldLocks()).isEmpty();
        assertThat(this.client.waitingCount()).isZero();
        assertThat(this.events.events)
                .extracting(RecordingEventListener.Event::kind)
                .containsExactly("acquired", "released");
    }

    @Test
    void anInterruptedCallerGetsAnErrorAndALateGrantIsHandedBack() {
        this.backend.ignoreCancel = true;
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> this.client.acquire(LockRequest.of("order:42")))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("Interrupted while waiting for lock 'order:42'");
        assertThat(Thread.interrupted()).as("interrupt status kept").isTrue();

        BackendLock lock = this.backend.grant(0);
        assertThat(this.backend.released).containsExactly(lock);
        assertThat(this.client.heldLocks()).isEmpty();
    }

    @Test
    void aBusyTryLockIsEmptyAndAsksTheStoreNotToQueue() {
        CompletableFuture<Optional<LockLease>> attempt =
                CompletableFuture.supplyAsync(() -> this.client.tryAcquire("order:42"));
        await().atMost(Duration.ofSeconds(10)).until(() -> this.backend.acquires.size() == 1);
        assertThat(this.backend.acquires.get(0).command().waitForRelease()).isFalse();

        this.backend.acquires.get(0).future().completeExceptionally(new LockAcquisitionTimeoutException("busy"));

        assertThat(attempt).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(Optional.empty());
    }

    @Test
    void aCheckedStoreFailureIsWrappedNamingTheBackend() {
        CompletableFuture<LockLease> attempt =
                CompletableFuture.supplyAsync(() -> this.client.acquire(LockRequest.of("order:42")));
        await().atMost(Duration.ofSeconds(10)).until(() -> this.backend.acquires.size() == 1);
        IOException cause = new IOException("connection reset");

        this.backend.acquires.get(0).future().completeExceptionally(cause);

        assertThat(attempt)
                .failsWithin(Duration.ofSeconds(10))
                .withThrowableOfType(ExecutionException.class)
                .havingCause()
                .isInstanceOf(LockException.class)
                .withMessage("Lock operation failed on scripted")
                .withCause(cause);
    }

    @Test
    void invalidRequestsFailTheFutureOfAnAsynchronousAcquire() {
        assertThat(this.client.acquireAsync(LockRequest.builder("order:42")
                        .leaseTtl(Duration.ofMillis(10))
                        .build()))
                .isCompletedExceptionally();
        assertThat(this.client.acquireAsync(LockRequest.of(" padded"))).isCompletedExceptionally();
        assertThat(this.backend.acquires).isEmpty();
    }

    @Test
    void closeClosesTheBackendOnceAndRefusesNewRequests() {
        granted(LockRequest.of("order:42"));

        this.client.close();
        this.client.close();

        assertThat(this.backend.closeCalls).hasValue(1);
        assertThat(this.client.heldLocks()).isEmpty();
        assertThatThrownBy(() -> this.client.acquire(LockRequest.of("order:43")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("LockClient is closed");
        assertThatThrownBy(() -> this.client.tryAcquire("order:43")).isInstanceOf(IllegalStateException.class);
        assertThat(this.backend.acquires).hasSize(1);
    }

    @Test
    void aBackendWithoutAdministrationOffersNone() {
        assertThat(this.client.administration()).isEmpty();
        assertThat(this.client.backend()).isSameAs(this.backend);
    }

    private LockLease granted(LockRequest request) {
        CompletableFuture<LockLease> lease = this.client.acquireAsync(request);
        this.backend.grant(this.backend.acquires.size() - 1);
        return lease.join();
    }
}
