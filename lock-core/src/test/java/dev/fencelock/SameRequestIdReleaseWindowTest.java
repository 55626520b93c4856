package dev.fencelock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.memory.InMemoryLockStore;
import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockBackend;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One thread releases the last hold of a request id while another acquires the same id. The
 * releasing thread is stopped where it has given its hold up but the backend has not yet been told
 * to release: an acquire that completes there must not end up with the lock that release then ends.
 */
class SameRequestIdReleaseWindowTest {

    /** Generous for steps that take microseconds; a test that hangs fails here instead of stalling the build. */
    private static final long STEP_SECONDS = 30;

    private final InMemoryLockStore store = new InMemoryLockStore();

    private final GatedReleases gate = new GatedReleases(InMemoryLockBackend.sharing(this.store));

    private final LockClient client = LockClient.builder(this.gate).build();

    private final LockClient otherInstance =
            LockClient.builder(InMemoryLockBackend.sharing(this.store)).build();

    private final ExecutorService releasingThread = Executors.newSingleThreadExecutor();

    @AfterEach
    void closeEverything() {
        this.gate.proceed.countDown();
        this.releasingThread.shutdownNow();
        this.client.close();
        this.otherInstance.close();
        this.store.close();
    }

    @Test
    void anAcquireOfTheSameIdDuringTheReleaseGetsALockOfItsOwnThatTheReleaseDoesNotEnd() throws Exception {
        LockRequest request = LockRequest.builder("order:42")
                .requestId("nightly-export")
                .waitTimeout(Duration.ofSeconds(STEP_SECONDS))
                .build();
        LockLease first = this.client.acquire(request);

        CompletableFuture<Boolean> releasing = CompletableFuture.supplyAsync(first::release, this.releasingThread);
        assertThat(this.gate.releaseCalled.await(STEP_SECONDS, TimeUnit.SECONDS))
                .isTrue();
        // The releasing thread has given its hold up and waits just before the backend's release.
        CompletableFuture<LockLease> second = this.client.acquireAsync(request);
        this.gate.proceed.countDown();

        assertThat(releasing.get(STEP_SECONDS, TimeUnit.SECONDS)).isTrue();
        LockLease lease = second.get(STEP_SECONDS, TimeUnit.SECONDS);
        assertThat(this.otherInstance.tryAcquire("order:42"))
                .as("another instance's try-lock on order:42 while %s is held", lease)
                .isEmpty();
        assertThat(this.store.keysOf("order:42")).containsExactly("nightly-export");
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.fencingToken())
                .as("token of the new acquisition, after the released one's")
                .isGreaterThan(first.fencingToken());
        assertThat(lease.release()).isTrue();
        assertThat(this.store.keysOf("order:42")).isEmpty();
    }

    @Test
    void anAcquireOfTheSameIdWaitsForTheReleaseNoLongerThanItsWaitTimeout() throws Exception {
        LockLease first = this.client.acquire(
                LockRequest.builder("order:42").requestId("nightly-export").build());

        this.releasingThread.execute(first::release);
        assertThat(this.gate.releaseCalled.await(STEP_SECONDS, TimeUnit.SECONDS))
                .isTrue();
        // The release stays stopped before the backend's release for the whole test.
        CompletableFuture<LockLease> second = this.client.acquireAsync(LockRequest.builder("order:42")
                .requestId("nightly-export")
                .waitTimeout(Duration.ofMillis(200))
                .build());

        // STEP_SECONDS is far beyond the 200 ms wait timeout that must end the attempt.
        assertThat(second)
                .failsWithin(Duration.ofSeconds(STEP_SECONDS))
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(LockAcquisitionTimeoutException.class)
                .withMessageContaining("order:42");
    }

    /** Delegates to a backend, but holds every release call until the test lets it through. */
    private static final class GatedReleases implements LockBackend {

        final CountDownLatch releaseCalled = new CountDownLatch(1);

        final CountDownLatch proceed = new CountDownLatch(1);

        private final LockBackend delegate;

        GatedReleases(LockBackend delegate) {
            this.delegate = delegate;
        }

        @Override
        public CompletableFuture<BackendLock> acquire(AcquireCommand command) {
            return this.delegate.acquire(command);
        }

        @Override
        public CompletableFuture<Long> renew(BackendLock lock) {
            return this.delegate.renew(lock);
        }

        @Override
        public CompletableFuture<Boolean> release(BackendLock lock) {
            this.releaseCalled.countDown();
            try {
                if (!this.proceed.await(STEP_SECONDS, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never let the release of " + lock + " through");
                }
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted before the release of " + lock, ex);
            }
            return this.delegate.release(lock);
        }

        @Override
        public String describe() {
            return "gated " + this.delegate.describe();
        }

        @Override
        public void close() {
            this.delegate.close();
        }
    }
}
