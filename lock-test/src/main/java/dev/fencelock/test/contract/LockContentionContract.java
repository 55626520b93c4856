package dev.fencelock.test.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The contract under contention: many threads of several clients on one resource never see two
 * holders at once, a token that does not grow, or waiters served out of arrival order. Part of
 * {@link LockBackendContract}; extend that.
 */
public abstract class LockContentionContract extends LockBackendContractSupport {

    LockContentionContract() {}

    @Test
    void mutualExclusionHoldsUnderConcurrentIncrements() throws Exception {
        List<LockClient> contenders = List.of(client(), client());
        String resource = resource("counter");
        int threads = 6;
        int iterations = fuzzIterations();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicLong lastToken = new AtomicLong();
        AtomicInteger tokenRegressions = new AtomicInteger();
        int[] counter = {0};
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                LockClient client = contenders.get(t % contenders.size());
                done.add(CompletableFuture.runAsync(
                        () -> {
                            for (int i = 0; i < iterations; i++) {
                                try (LockLease lease = client.acquire(LockRequest.builder(resource)
                                        .waitTimeout(patience())
                                        .build())) {
                                    if (inside.incrementAndGet() != 1) {
                                        overlaps.incrementAndGet();
                                    }
                                    if (lease.fencingToken() <= lastToken.get()) {
                                        tokenRegressions.incrementAndGet();
                                    }
                                    lastToken.set(lease.fencingToken());
                                    int read = counter[0];
                                    Thread.yield();
                                    counter[0] = read + 1;
                                    inside.decrementAndGet();
                                }
                            }
                        },
                        pool));
            }
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
        } finally {
            pool.shutdownNow();
        }
        assertThat(overlaps.get()).as("times two holders were inside at once").isZero();
        assertThat(tokenRegressions.get()).as("tokens that did not grow").isZero();
        assertThat(counter[0]).isEqualTo(threads * iterations);
        await().atMost(patience()).until(() -> keysOf(resource) == 0);
    }

    @Test
    void everyGrantedLockStaysHeldUntilItsHolderReleasesIt() throws Exception {
        // Many resources, several threads per client: a lock must never be released behind its
        // holder's back (for instance by a second internal path that also found it free).
        List<LockClient> contenders = List.of(client(), client());
        int threads = 6;
        int resources = 12;
        AtomicInteger invalidInside = new AtomicInteger();
        AtomicInteger failedReleases = new AtomicInteger();
        AtomicInteger cycles = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                LockClient client = contenders.get(t % contenders.size());
                int offset = t;
                done.add(CompletableFuture.runAsync(
                        () -> {
                            for (int i = 0; i < fuzzIterations(); i++) {
                                String name = resource("r" + ((i + offset) % resources));
                                LockLease lease = client.acquire(LockRequest.builder(name)
                                        .waitTimeout(patience())
                                        .build());
                                Thread.yield();
                                if (!lease.isValid()) {
                                    invalidInside.incrementAndGet();
                                }
                                if (!lease.release()) {
                                    failedReleases.incrementAndGet();
                                }
                                cycles.incrementAndGet();
                            }
                        },
                        pool));
            }
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
        } finally {
            pool.shutdownNow();
        }
        assertThat(cycles.get()).isEqualTo(threads * fuzzIterations());
        assertThat(invalidInside.get())
                .as("locks that stopped being valid while held")
                .isZero();
        assertThat(failedReleases.get())
                .as("releases of a lock that was no longer held")
                .isZero();
    }

    @Test
    void shortWaitTimeoutsUnderContentionNeverMakeTwoHolders() throws Exception {
        // Timeouts that expire while the lock is being handed over must either hand the lock to the
        // caller or clean up, never both.
        List<LockClient> contenders = List.of(client(), client());
        String resource = resource("timeouts");
        int threads = 8;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger acquired = new AtomicInteger();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                LockClient client = contenders.get(t % contenders.size());
                // One contender waits long enough to get the lock however slow the store is, so
                // the short waits below always meet hand-overs to time out against.
                long wait = (t == threads - 1) ? 2_000 : 10 + 10L * t;
                done.add(CompletableFuture.runAsync(
                        () -> {
                            for (int i = 0; i < 500 && System.nanoTime() < end; i++) {
                                LockLease lease;
                                try {
                                    lease = client.acquire(LockRequest.builder(resource)
                                            .waitTimeout(Duration.ofMillis(wait))
                                            .build());
                                } catch (LockAcquisitionTimeoutException | LockBackendUnavailableException notNow) {
                                    // Busy, or the wait was too short for the round trip: not acquired.
                                    continue;
                                }
                                if (inside.incrementAndGet() != 1) {
                                    overlaps.incrementAndGet();
                                }
                                Thread.yield();
                                if (!lease.isValid()) {
                                    overlaps.incrementAndGet();
                                }
                                inside.decrementAndGet();
                                lease.release();
                                acquired.incrementAndGet();
                            }
                        },
                        pool));
            }
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
        } finally {
            pool.shutdownNow();
        }
        assertThat(acquired.get()).isPositive();
        assertThat(overlaps.get())
                .as("two holders, or a holder whose lock was taken away")
                .isZero();
        await().atMost(patience()).until(() -> keysOf(resource) == 0);
    }

    @Test
    void waitersAreServedInArrivalOrder() throws Exception {
        LockClient holderClient = client();
        String resource = resource("fifo");
        LockLease holder = holderClient.acquire(LockRequest.of(resource));
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            LockClient waiterClient = client();
            String name = "w" + i;
            waiters.add(waiterClient
                    .acquireAsync(LockRequest.builder(resource)
                            .waitTimeout(patience())
                            .build())
                    .thenAcceptAsync(lease -> {
                        order.add(name);
                        tokens.add(lease.fencingToken());
                        lease.release();
                    }));
            int expected = i + 2;
            await().atMost(patience()).until(() -> keysOf(resource) == expected);
        }
        holder.release();
        CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new))
                .get(patience().toSeconds(), TimeUnit.SECONDS);
        assertThat(order).containsExactly("w0", "w1", "w2");
        assertThat(tokens).isSorted().doesNotHaveDuplicates().allMatch(t -> t > holder.fencingToken());
    }
}
