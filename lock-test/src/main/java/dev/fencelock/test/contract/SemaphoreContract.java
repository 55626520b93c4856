package dev.fencelock.test.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockMode;
import dev.fencelock.LockPermitsMismatchException;
import dev.fencelock.LockRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Semaphores ({@link LockRequest.Builder#permits(int)}): at most {@code n} holders at once, each
 * with its own lease and token, admitted in arrival order; a request with another number of
 * permits than the keys already there is refused. Part of {@link LockBackendContract}; extend that.
 */
public abstract class SemaphoreContract extends ReadWriteLockContract {

    SemaphoreContract() {}

    @Test
    void nPermitsAdmitNHoldersAndTheNextWaitsForOneToLeave() throws Exception {
        LockClient a = client();
        LockClient b = client();
        LockClient c = client();
        String resource = resource("permits");
        LockLease first = a.acquire(permits(resource, 2));
        LockLease second = b.tryAcquire(permits(resource, 2)).orElseThrow();
        assertThat(first.permits()).isEqualTo(2);
        assertThat(first.isExclusive()).isFalse();
        assertThat(second.fencingToken()).isNotEqualTo(first.fencingToken());
        assertThat(second.leaseId()).isNotEqualTo(first.leaseId());
        assertThat(c.tryAcquire(permits(resource, 2))).isEmpty();
        assertThat(keysOf(resource)).isEqualTo(2);

        CompletableFuture<LockLease> third = c.acquireAsync(
                LockRequest.builder(resource).permits(2).waitTimeout(patience()).build());
        await().atMost(patience()).until(() -> keysOf(resource) == 3);
        second.release();
        LockLease granted = third.get(patience().toSeconds(), TimeUnit.SECONDS);
        assertThat(granted.fencingToken()).isGreaterThan(second.fencingToken());
        assertThat(first.isValid()).isTrue();
        first.release();
        granted.release();
        await().atMost(patience()).until(() -> keysOf(resource) == 0);
    }

    @Test
    void aRequestWithAnotherNumberOfPermitsIsRefusedAndLeavesNoKey() {
        LockClient holder = client();
        LockClient other = client();
        String resource = resource("mismatch");
        LockLease permit = holder.acquire(permits(resource, 3));
        assertThatThrownBy(() -> other.acquire(LockRequest.builder(resource)
                        .permits(5)
                        .waitTimeout(patience())
                        .build()))
                .isInstanceOf(LockPermitsMismatchException.class)
                .hasMessageContaining(resource)
                .hasMessageContaining("3 permits");
        assertThatThrownBy(() -> other.acquire(
                        LockRequest.builder(resource).waitTimeout(patience()).build()))
                .isInstanceOf(LockPermitsMismatchException.class);
        assertThatThrownBy(() -> other.tryAcquire(
                        LockRequest.builder(resource).mode(LockMode.SHARED).build()))
                .isInstanceOf(LockPermitsMismatchException.class);
        await().atMost(patience()).until(() -> keysOf(resource) == 1);
        permit.release();

        String locked = resource("exclusive-first");
        LockLease lock = holder.acquire(LockRequest.of(locked));
        assertThatThrownBy(() -> other.tryAcquire(permits(locked, 2)))
                .isInstanceOf(LockPermitsMismatchException.class)
                .hasMessageContaining("an exclusive lock");
        await().atMost(patience()).until(() -> keysOf(locked) == 1);
        lock.release();
    }

    @Test
    void aSemaphoreNeverAdmitsMoreHoldersThanItsPermitsUnderContention() throws Exception {
        List<LockClient> contenders = List.of(client(), client());
        String resource = resource("permit-counter");
        int permits = 3;
        int threads = 8;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        AtomicInteger cycles = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                LockClient client = contenders.get(t % contenders.size());
                done.add(CompletableFuture.runAsync(
                        () -> {
                            for (int i = 0; i < fuzzIterations(); i++) {
                                try (LockLease lease = client.acquire(LockRequest.builder(resource)
                                        .permits(permits)
                                        .waitTimeout(patience())
                                        .build())) {
                                    int now = inside.incrementAndGet();
                                    mostInside.accumulateAndGet(now, Math::max);
                                    Thread.yield();
                                    if (!lease.isValid()) {
                                        mostInside.set(Integer.MAX_VALUE);
                                    }
                                    inside.decrementAndGet();
                                    cycles.incrementAndGet();
                                }
                            }
                        },
                        pool));
            }
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
        } finally {
            pool.shutdownNow();
        }
        assertThat(mostInside.get()).as("most holders inside at once").isBetween(1, permits);
        assertThat(cycles.get()).isEqualTo(threads * fuzzIterations());
        await().atMost(patience()).until(() -> keysOf(resource) == 0);
    }

    static LockRequest permits(String resource, int permits) {
        return LockRequest.builder(resource).permits(permits).build();
    }
}
