package dev.fencelock.test.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencelock.InvalidLockKeyException;
import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockClientBuilder;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.LockQueueFullException;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.BackendHealth;
import dev.fencelock.spi.QueueEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The behaviour every {@link dev.fencelock.spi.LockBackend} must show. A backend is done when a
 * subclass of this class passes: extend it, supply clients that lock against one shared store,
 * and a way to freeze a client's renewals.
 *
 * <p>Each test uses resource names unique to the test, so a shared store needs no cleaning
 * between tests; every test checks that it leaves no key behind where that is the point.
 */
public abstract class LockBackendContract {

    private final List<LockClient> clients = new CopyOnWriteArrayList<>();

    private String prefix = "t";

    /**
     * A new client on the shared store, as a separate application instance would have. The
     * customizer adjusts the client's settings.
     */
    protected abstract LockClient createClient(Consumer<LockClientBuilder> customizer);

    /** Makes {@code client} stop renewing its leases, as if its process froze; it cannot reach the store. */
    protected abstract void freezeRenewals(LockClient client);

    /** Number of keys (holders and waiters) the store has for {@code resource}. */
    protected abstract int keysOf(String resource);

    /** The shortest lease TTL the store honours quickly; etcd's minimum is about two seconds. */
    protected Duration shortLeaseTtl() {
        return Duration.ofSeconds(2);
    }

    /** How long the store may take for anything these tests await. */
    protected Duration patience() {
        return Duration.ofSeconds(20);
    }

    /** Lock cycles per thread in the mutual-exclusion fuzz. */
    protected int fuzzIterations() {
        return 40;
    }

    @BeforeEach
    void namePrefix(TestInfo info) {
        this.prefix = info.getTestMethod().map(m -> m.getName()).orElse("t") + "-" + System.nanoTime();
    }

    @AfterEach
    void closeClients() {
        beforeClientsClose();
        this.clients.forEach(LockClient::close);
        this.clients.clear();
        afterClientsClosed();
    }

    /** Runs before the test's clients close; undo faults here so they can release their leases. */
    protected void beforeClientsClose() {}

    /** Runs after the test's clients closed; stop per-test infrastructure here. */
    protected void afterClientsClosed() {}

    protected final LockClient client() {
        return client(builder -> {});
    }

    protected final LockClient client(Consumer<LockClientBuilder> customizer) {
        LockClient client = createClient(customizer);
        this.clients.add(client);
        return client;
    }

    protected final String resource(String name) {
        return this.prefix + ":" + name;
    }

    @Test
    void acquireReleaseHandsTheLockOn() {
        LockClient a = client();
        LockClient b = client();
        String resource = resource("r");
        LockLease lease = a.acquire(LockRequest.of(resource));
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.fencingToken()).isPositive();
        assertThat(lease.resource()).isEqualTo(resource);
        assertThat(lease.expiresAt()).isAfter(java.time.Instant.now());
        assertThat(b.tryAcquire(resource)).isEmpty();
        assertThat(lease.release()).isTrue();
        assertThat(lease.release()).isFalse();
        assertThat(lease.isValid()).isFalse();
        Optional<LockLease> next = b.tryAcquire(resource);
        assertThat(next).isPresent();
        assertThat(next.get().fencingToken()).isGreaterThan(lease.fencingToken());
        next.get().release();
        await().atMost(patience()).until(() -> keysOf(resource) == 0);
    }

    @Test
    void asynchronousReleaseFreesTheLockOnceItCompletes() throws Exception {
        LockClient a = client();
        LockClient b = client();
        String resource = resource("async");
        LockLease lease = a.acquire(LockRequest.of(resource));
        CompletableFuture<Boolean> released = lease.releaseAsync();
        assertThat(lease.isValid()).isFalse();
        assertThat(released.get(patience().toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(lease.releaseAsync().get(patience().toSeconds(), TimeUnit.SECONDS))
                .isFalse();
        Optional<LockLease> next = b.tryAcquire(resource);
        assertThat(next).isPresent();
        next.get().release();
    }

    @Test
    void theQueueShowsTheHolderFirstAndAForceReleaseHandsTheLockOn() throws Exception {
        LockClient holder = client();
        LockClient waiter = client();
        LockClient operator = client();
        String resource = resource("admin");
        ResourceName name = ResourceName.of(resource, ResourceName.DEFAULT_MAX_LENGTH);
        LockLease held = holder.acquire(
                LockRequest.builder(resource).requestId("holder-1").build());
        CompletableFuture<LockLease> next = waiter.acquireAsync(LockRequest.builder(resource)
                .requestId("waiter-1")
                .waitTimeout(patience())
                .build());
        await().atMost(patience()).until(() -> keysOf(resource) == 2);
        List<QueueEntry> queue = operator.administration()
                .orElseThrow()
                .queue(name)
                .get(patience().toSeconds(), TimeUnit.SECONDS);
        assertThat(queue).extracting(QueueEntry::requestId).containsExactly("holder-1", "waiter-1");
        assertThat(queue.get(0).fencingToken()).isEqualTo(held.fencingToken());

        Optional<QueueEntry> removed = operator.administration()
                .orElseThrow()
                .forceRelease(name)
                .get(patience().toSeconds(), TimeUnit.SECONDS);
        assertThat(removed).map(QueueEntry::requestId).contains("holder-1");
        LockLease successor = next.get(patience().toSeconds(), TimeUnit.SECONDS);
        assertThat(successor.fencingToken()).isGreaterThan(held.fencingToken());
        // The old holder finds out at its next renewal at the latest.
        assertThatThrownBy(held::renew).isInstanceOf(LockLostException.class);
        assertThat(held.isValid()).isFalse();
        successor.release();
    }

    @Test
    void healthIsUpWhileTheStoreAnswers() throws Exception {
        BackendHealth health = client().administration()
                .orElseThrow()
                .health(Duration.ofSeconds(5))
                .get(patience().toSeconds(), TimeUnit.SECONDS);
        assertThat(health.up()).isTrue();
    }

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
                long wait = 10 + 10L * t;
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

    @Test
    void tryLockOnABusyResourceFailsAndLeavesNoKey() {
        LockClient a = client();
        LockClient b = client();
        String resource = resource("busy");
        LockLease lease = a.acquire(LockRequest.of(resource));
        assertThat(b.tryAcquire(resource)).isEmpty();
        assertThat(keysOf(resource)).isEqualTo(1);
        lease.release();
    }

    @Test
    void waitTimeoutLeavesNoKey() {
        LockClient a = client();
        LockClient b = client();
        String resource = resource("timeout");
        LockLease lease = a.acquire(LockRequest.of(resource));
        assertThatThrownBy(() -> b.acquire(LockRequest.builder(resource)
                        .waitTimeout(Duration.ofMillis(700))
                        .build()))
                .isInstanceOf(LockAcquisitionTimeoutException.class)
                .hasMessageContaining(resource);
        await().atMost(patience()).until(() -> keysOf(resource) == 1);
        lease.release();
        await().atMost(patience()).until(() -> keysOf(resource) == 0);
    }

    @Test
    void cancelledWaiterLeavesNoKeyAndNeverGetsTheLock() throws Exception {
        LockClient a = client();
        LockClient b = client();
        LockClient c = client();
        String resource = resource("cancel");
        LockLease lease = a.acquire(LockRequest.of(resource));
        CompletableFuture<LockLease> waiting = b.acquireAsync(
                LockRequest.builder(resource).waitTimeout(patience()).build());
        await().atMost(patience()).until(() -> keysOf(resource) == 2);
        assertThat(waiting.cancel(true)).isTrue();
        await().atMost(patience()).until(() -> keysOf(resource) == 1);
        lease.release();
        LockLease third =
                c.acquire(LockRequest.builder(resource).waitTimeout(patience()).build());
        assertThat(third.fencingToken()).isGreaterThan(lease.fencingToken());
        assertThat(b.heldLocks()).isEmpty();
        third.release();
    }

    @Test
    void retryWithTheSameRequestIdReturnsTheSameLockAndToken() {
        LockClient a = client();
        String resource = resource("retry");
        LockRequest request = LockRequest.builder(resource)
                .requestId("req-" + resource.hashCode())
                .build();
        LockLease first = a.acquire(request);
        LockLease again = a.acquire(request);
        assertThat(again.fencingToken()).isEqualTo(first.fencingToken());
        assertThat(again.leaseId()).isEqualTo(first.leaseId());
        assertThat(again.requestId()).isEqualTo(first.requestId());
        assertThat(keysOf(resource)).isEqualTo(1);
        again.release();
        first.release();
    }

    @Test
    void reentryKeepsTheTokenUntilTheLastHoldIsReleased() {
        LockClient a = client();
        LockClient b = client();
        String resource = resource("reentry");
        LockRequest request = LockRequest.builder(resource).requestId("owner-1").build();
        LockLease outer = a.acquire(request);
        LockLease inner = a.acquire(request);
        assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
        assertThat(a.heldLocks())
                .singleElement()
                .satisfies(held -> assertThat(held.holds()).isEqualTo(2));
        assertThat(inner.release()).isTrue();
        assertThat(outer.isValid()).isTrue();
        assertThat(b.tryAcquire(resource)).isEmpty();
        assertThat(outer.release()).isTrue();
        Optional<LockLease> next = b.tryAcquire(resource);
        assertThat(next).isPresent();
        assertThat(next.get().fencingToken()).isGreaterThan(outer.fencingToken());
        next.get().release();
    }

    @Test
    void expiredHolderIsReplacedByTheNextWaiterWithALargerToken() throws Exception {
        LockClient frozen = client();
        LockClient waiter = client();
        String resource = resource("expiry");
        LockLease old = frozen.acquire(
                LockRequest.builder(resource).leaseTtl(shortLeaseTtl()).build());
        CountDownLatch lostSeen = new CountDownLatch(1);
        AtomicReference<LockLostException> lostCause = new AtomicReference<>();
        old.onLost(cause -> {
            lostCause.set(cause);
            lostSeen.countDown();
        });
        CompletableFuture<LockLease> next = waiter.acquireAsync(
                LockRequest.builder(resource).waitTimeout(patience()).build());
        await().atMost(patience()).until(() -> keysOf(resource) == 2);
        freezeRenewals(frozen);
        LockLease replacement = next.get(patience().toSeconds(), TimeUnit.SECONDS);
        // The old holder stopped trusting its lock no later than the store gave it away.
        assertThat(old.isValid()).isFalse();
        assertThat(replacement.fencingToken()).isGreaterThan(old.fencingToken());
        assertThat(lostSeen.await(patience().toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(lostCause.get()).hasMessageContaining(resource);
        replacement.release();
    }

    @Test
    void anOldHolderCannotRenewOrReleaseTheNewHoldersLock() {
        LockClient frozen = client();
        LockClient other = client();
        String resource = resource("old-holder");
        LockLease old = frozen.acquire(
                LockRequest.builder(resource).leaseTtl(shortLeaseTtl()).build());
        freezeRenewals(frozen);
        LockLease current = other.acquire(
                LockRequest.builder(resource).waitTimeout(patience()).build());
        assertThat(current.fencingToken()).isGreaterThan(old.fencingToken());
        assertThatThrownBy(old::renew)
                .isInstanceOfAny(LockLostException.class, dev.fencelock.LockBackendUnavailableException.class);
        assertThat(old.release()).isFalse();
        assertThat(current.isValid()).isTrue();
        assertThat(keysOf(resource)).isEqualTo(1);
        assertThat(current.renew()).isAfter(java.time.Instant.now());
        current.release();
    }

    @Test
    void invalidNamesAreRefusedBeforeAnythingIsWritten() {
        LockClient a = client();
        List<String> invalid = List.of(
                "",
                " leading",
                "trailing ",
                "a\u0000b",
                "line\nbreak",
                "zero\u200Bwidth",
                "x".repeat(10_000),
                "bell\u0007");
        for (String name : invalid) {
            assertThatThrownBy(() -> a.acquire(LockRequest.of(name)))
                    .as("name %s", name.length() > 20 ? name.substring(0, 20) : name)
                    .isInstanceOf(InvalidLockKeyException.class);
            assertThatThrownBy(() -> a.tryAcquire(name)).isInstanceOf(InvalidLockKeyException.class);
        }
        assertThat(keysOf("x".repeat(10))).isZero();
        assertThat(a.heldLocks()).isEmpty();
    }

    @Test
    void resourcesWhoseNamesNestOrEscapeDoNotOverlap() {
        LockClient a = client();
        LockClient b = client();
        String base = resource("a");
        List<LockLease> leases = new ArrayList<>();
        for (String name : List.of(base, base + "/b", base + "%2Fb", base + "/", base + "%")) {
            Optional<LockLease> lease = a.tryAcquire(name);
            assertThat(lease).as("first lock of %s", name).isPresent();
            leases.add(lease.get());
            assertThat(keysOf(name)).as("keys of %s", name).isEqualTo(1);
        }
        for (LockLease lease : leases) {
            assertThat(b.tryAcquire(lease.resource()))
                    .as("second lock of %s", lease.resource())
                    .isEmpty();
            lease.release();
        }
    }

    @Test
    void namesThatLookTheSameAfterNormalisationAreOneResource() {
        LockClient a = client();
        LockClient b = client();
        String composed = resource("caf\u00e9");
        String decomposed = resource("cafe\u0301");
        LockLease lease = a.acquire(LockRequest.of(composed));
        assertThat(b.tryAcquire(decomposed)).isEmpty();
        assertThat(lease.resource()).isEqualTo(composed);
        lease.release();
    }

    @Test
    void tooManyWaitersAreRefused() throws Exception {
        LockClient holder = client();
        LockClient bounded = client(builder -> builder.maxWaitersPerResource(2));
        String resource = resource("queue");
        LockLease lease = holder.acquire(LockRequest.of(resource));
        List<CompletableFuture<Void>> waiting = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            // Either waiter may be first in line: each releases as soon as it gets the lock.
            waiting.add(bounded.acquireAsync(LockRequest.builder(resource)
                            .waitTimeout(patience())
                            .build())
                    .thenAcceptAsync(LockLease::release));
        }
        assertThatThrownBy(() -> bounded.acquire(LockRequest.of(resource))).isInstanceOf(LockQueueFullException.class);
        assertThat(bounded.waitingCount()).isEqualTo(2);
        lease.release();
        CompletableFuture.allOf(waiting.toArray(CompletableFuture[]::new))
                .get(patience().toSeconds(), TimeUnit.SECONDS);
        await().atMost(patience()).until(() -> keysOf(resource) == 0);
    }

    @Test
    void leaseTtlAndWaitTimeoutAreBounded() {
        LockClient a =
                client(builder -> builder.maxLeaseTtl(Duration.ofMinutes(1)).maxWaitTimeout(Duration.ofSeconds(30)));
        String resource = resource("bounds");
        assertThatThrownBy(() -> a.acquire(LockRequest.builder(resource)
                        .leaseTtl(Duration.ofMillis(500))
                        .build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("whole seconds");
        assertThatThrownBy(() -> a.acquire(LockRequest.builder(resource)
                        .leaseTtl(Duration.ofMinutes(2))
                        .build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max-lease-ttl");
        assertThatThrownBy(() -> a.acquire(LockRequest.builder(resource)
                        .waitTimeout(Duration.ofMinutes(1))
                        .build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max-wait-timeout");
        assertThat(keysOf(resource)).isZero();
        // A fraction of a second is rounded up, never down.
        LockLease lease = a.acquire(
                LockRequest.builder(resource).leaseTtl(Duration.ofMillis(2500)).build());
        assertThat(lease.expiresAt()).isAfter(java.time.Instant.now().plusMillis(1500));
        lease.release();
    }
}
