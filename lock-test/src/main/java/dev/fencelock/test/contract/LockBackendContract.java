package dev.fencelock.test.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencelock.FencingContext;
import dev.fencelock.InvalidLockKeyException;
import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.LockQueueFullException;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.BackendHealth;
import dev.fencelock.spi.QueueEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link dev.fencelock.spi.LockBackend} must show. A backend is done when a
 * subclass of this class passes: extend it, supply clients that lock against one shared store,
 * and a way to freeze a client's renewals.
 *
 * <p>Each test uses resource names unique to the test, so a shared store needs no cleaning
 * between tests; every test checks that it leaves no key behind where that is the point.
 *
 * <p>The tests under contention are in {@link LockContentionContract}, those of read-write locks,
 * semaphores and {@code acquireAll} in {@link ReadWriteLockContract}, {@link SemaphoreContract} and
 * {@link MultiLockContract}, the hooks a subclass supplies in {@link LockBackendContractSupport};
 * this class inherits them all, so extending it runs every contract test.
 */
public abstract class LockBackendContract extends MultiLockContract {

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
    void leasesAndTheirFencesSayWhetherTheTokenFences() {
        LockClient a = client();
        String resource = resource("fencing");
        try (LockLease lease = a.acquire(LockRequest.of(resource));
                FencingContext.Scope scope = FencingContext.open(lease)) {
            assertThat(lease.isFencing()).as("isFencing of %s", lease).isEqualTo(issuesFencingTokens());
            assertThat(scope.fence().fencing()).isEqualTo(issuesFencingTokens());
            assertThat(a.backend().issuesFencingTokens()).isEqualTo(issuesFencingTokens());
        }
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
        // The old holder finds out at its next renewal at the latest (etcd: within one watch event).
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
        // Long enough for the queue entry's round trip on a loaded machine: the wait, not the store, ends it.
        assertThatThrownBy(() -> b.acquire(LockRequest.builder(resource)
                        .waitTimeout(Duration.ofSeconds(2))
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
        // A fraction of a second is rounded up, never down. Read against the clock before the call, a
        // lease of 3 s trusted for its trusted share ends after 2.5 s times that share on any machine;
        // one of 2 s would end before.
        java.time.Instant before = java.time.Instant.now();
        LockLease lease = a.acquire(
                LockRequest.builder(resource).leaseTtl(Duration.ofMillis(2500)).build());
        assertThat(lease.expiresAt()).isAfter(before.plusMillis(Math.round(2500 * leaseTrustedShare())));
        lease.release();
    }
}
