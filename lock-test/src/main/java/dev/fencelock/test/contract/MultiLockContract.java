package dev.fencelock.test.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockMode;
import dev.fencelock.LockRequest;
import dev.fencelock.MultiLockLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Several locks at once ({@link LockClient#acquireAll}): taken in one canonical order, so callers
 * that list them differently never deadlock; all or nothing, so a failure leaves none of them held.
 * Part of {@link LockBackendContract}; extend that.
 */
public abstract class MultiLockContract extends SemaphoreContract {

    MultiLockContract() {}

    @Test
    void acquireAllHoldsEveryLockUntilItIsClosed() {
        LockClient a = client();
        LockClient b = client();
        List<String> resources = List.of(resource("c"), resource("a"), resource("b"));
        try (MultiLockLease locks =
                a.acquireAll(resources.stream().map(LockRequest::of).toList())) {
            assertThat(locks.leases())
                    .extracting(LockLease::resource)
                    .containsExactly(resource("a"), resource("b"), resource("c"));
            for (String resource : resources) {
                assertThat(b.tryAcquire(resource)).as(resource).isEmpty();
            }
            assertThat(locks.isValid()).isTrue();
        }
        for (String resource : resources) {
            await().atMost(patience()).until(() -> keysOf(resource) == 0);
        }
    }

    @Test
    void callersListingTheSameLocksInOppositeOrdersNeverDeadlock() throws Exception {
        List<LockClient> contenders = List.of(client(), client());
        String first = resource("left");
        String second = resource("right");
        int threads = 4;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                LockClient client = contenders.get(t % contenders.size());
                List<String> order = (t % 2 == 0) ? List.of(first, second) : List.of(second, first);
                done.add(CompletableFuture.runAsync(
                        () -> {
                            for (int i = 0; i < fuzzIterations() / 2; i++) {
                                List<LockRequest> requests = order.stream()
                                        .map(name -> LockRequest.builder(name)
                                                .waitTimeout(patience())
                                                .build())
                                        .toList();
                                try (MultiLockLease locks = client.acquireAll(requests)) {
                                    if (inside.incrementAndGet() != 1) {
                                        overlaps.incrementAndGet();
                                    }
                                    Thread.yield();
                                    inside.decrementAndGet();
                                }
                            }
                        },
                        pool));
            }
            // A deadlock would show as wait timeouts (LockAcquisitionTimeoutException) failing this.
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
        } finally {
            pool.shutdownNow();
        }
        assertThat(overlaps.get()).as("two holders of both locks at once").isZero();
        await().atMost(patience()).until(() -> keysOf(first) == 0 && keysOf(second) == 0);
    }

    @Test
    void whenOneLockStaysBusyNoneIsHeldAfterwards() {
        LockClient holder = client();
        LockClient caller = client();
        LockClient other = client();
        String a = resource("all-a");
        String b = resource("all-b");
        String c = resource("all-c");
        LockLease busy = holder.acquire(LockRequest.of(b));
        // The shortest wait, long enough for a's round trip on a loaded machine: b's wait is what ends.
        assertThatThrownBy(() -> caller.acquireAll(List.of(
                        LockRequest.builder(c)
                                .waitTimeout(Duration.ofSeconds(2))
                                .build(),
                        LockRequest.of(a),
                        LockRequest.of(b))))
                .isInstanceOf(LockAcquisitionTimeoutException.class)
                .hasMessageContaining(b);
        assertThat(caller.heldLocks()).isEmpty();
        // a was taken first and given back; c was never asked for.
        await().atMost(patience()).until(() -> keysOf(a) == 0 && keysOf(b) == 1 && keysOf(c) == 0);
        LockLease free = other.tryAcquire(a).orElseThrow();
        free.release();
        busy.release();
    }

    @Test
    void aReaderOfOneResourceAndTheWriterOfAnotherAreTakenTogether() {
        LockClient mover = client();
        LockClient reader = client();
        String source = resource("source");
        String target = resource("target");
        LockLease otherReader =
                reader.acquire(LockRequest.builder(source).mode(LockMode.SHARED).build());
        try (MultiLockLease locks = mover.acquireAll(List.of(
                LockRequest.builder(target).build(),
                LockRequest.builder(source).mode(LockMode.SHARED).build()))) {
            assertThat(locks.lease(source).orElseThrow().mode()).isEqualTo(LockMode.SHARED);
            assertThat(locks.lease(target).orElseThrow().isExclusive()).isTrue();
            assertThat(reader.tryAcquire(target)).isEmpty();
        }
        otherReader.release();
    }
}
