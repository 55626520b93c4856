package dev.fencelock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.LockClient;
import dev.fencelock.LockClientBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * ShedLock's contract for a {@code LockProvider} and an {@code ExtensibleLockProvider}, written from
 * its Javadoc and documentation (its own test-support jar is not published), plus what FenceLock
 * adds: deadlines as timers, whole-second leases, and fences. Every backend runs it; "another
 * instance" is a second client on the same store.
 */
abstract class FenceLockProviderContract {

    private final List<AutoCloseable> closeables = new ArrayList<>();

    private final String name = "job-" + UUID.randomUUID();

    /** A client on the shared store; the test closes it. */
    protected abstract LockClient createClient(Consumer<LockClientBuilder> customizer);

    /** Makes {@code client} stop renewing its leases, as if its process had died. */
    protected abstract void freezeRenewals(LockClient client);

    /** How many lock attempts each thread of the fuzz test makes. */
    protected abstract int fuzzIterations();

    /** Runs once the test's providers and clients are closed. */
    protected void afterClientsClosed() {}

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = this.closeables.size() - 1; i >= 0; i--) {
            this.closeables.get(i).close();
        }
        afterClientsClosed();
        List<Fence> left = FencingContext.all();
        // Cleared before the check, so one failing test does not fail every later one on this thread.
        FencingContext.setAll(List.of());
        assertThat(left).as("fences left on the test thread").isEmpty();
    }

    @Test
    void lockExcludesOtherInstancesUntilUnlocked() {
        FenceLockProvider mine = provider();
        FenceLockProvider other = provider();

        SimpleLock lock =
                mine.lock(config(Duration.ofMinutes(5), Duration.ZERO)).orElseThrow();
        assertThat(takenBy(other)).isFalse();

        lock.unlock();
        assertThat(takenBy(other)).isTrue();
    }

    @Test
    void secondLockOfTheSameNameInOneInstanceIsRefused() {
        FenceLockProvider mine = provider();

        SimpleLock lock =
                mine.lock(config(Duration.ofMinutes(5), Duration.ZERO)).orElseThrow();
        assertThat(mine.lock(config(Duration.ofMinutes(5), Duration.ZERO))).isEmpty();
        lock.unlock();
    }

    @Test
    void differentNamesDoNotExcludeEachOther() {
        FenceLockProvider mine = provider();

        SimpleLock first =
                mine.lock(config(Duration.ofMinutes(5), Duration.ZERO)).orElseThrow();
        SimpleLock second = mine.lock(new LockConfiguration(
                        ClockProvider.now(), this.name + "-other", Duration.ofMinutes(5), Duration.ZERO))
                .orElseThrow();
        second.unlock();
        first.unlock();
    }

    @Test
    void lockCanBeTakenAgainRightAfterUnlock() {
        FenceLockProvider mine = provider();
        FenceLockProvider other = provider();
        for (int i = 0; i < 10; i++) {
            FenceLockProvider taker = (i % 2 == 0) ? mine : other;
            SimpleLock lock = taker.lock(config(Duration.ofMinutes(5), Duration.ZERO))
                    .orElseThrow(() -> new AssertionError("not locked right after the unlock before"));
            assertThat(takenBy(taker == mine ? other : mine)).isFalse();
            lock.unlock();
        }
    }

    @Test
    void lockAtMostForReleasesTheLockWhileTheHolderStillRuns() {
        FenceLockProvider mine = provider();
        FenceLockProvider other = provider();
        // Long enough that the first look below comes before the deadline on a loaded machine.
        LockConfiguration config = config(Duration.ofSeconds(3), Duration.ZERO);

        FencedSimpleLock lock = (FencedSimpleLock) mine.lock(config).orElseThrow();
        Fence fence = FencingContext.current().orElseThrow();
        assertThat(takenBy(other)).isFalse();

        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> takenBy(other));
        assertThat(ClockProvider.now()).isAfterOrEqualTo(config.getLockAtMostUntil());
        assertThat(lock.isValid()).isFalse();
        assertThat(fence.isValid())
                .as("the late task's fence, so its writes are refused")
                .isFalse();

        // The task finishes late; its unlock is quiet and takes the fence off the thread.
        lock.unlock();
        assertThat(FencingContext.current()).isEmpty();
    }

    @Test
    void lockAtLeastForKeepsTheLockAfterAnEarlyUnlock() {
        FenceLockProvider mine = provider();
        FenceLockProvider other = provider();
        LockConfiguration config = config(Duration.ofSeconds(10), Duration.ofSeconds(3));

        mine.lock(config).orElseThrow().unlock();
        boolean taken = takenBy(other);
        if (taken) {
            // Only a machine too slow to try within lockAtLeastFor may find the lock free.
            assertThat(ClockProvider.now())
                    .as("the other provider got the lock, so lockAtLeastUntil must have passed")
                    .isAfterOrEqualTo(config.getLockAtLeastUntil());
        }

        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> takenBy(other));
        assertThat(ClockProvider.now()).isAfterOrEqualTo(config.getLockAtLeastUntil());
    }

    @Test
    void closingTheProviderReleasesItsLocksAndRefusesNewOnes() {
        LockClient sharedClient = client(builder -> {});
        FenceLockProvider closing = new FenceLockProvider(sharedClient);
        FenceLockProvider other = provider();

        SimpleLock running =
                closing.lock(config(Duration.ofMinutes(5), Duration.ZERO)).orElseThrow();
        closing.lock(new LockConfiguration(
                        ClockProvider.now(), this.name + "-done", Duration.ofMinutes(5), Duration.ofMinutes(4)))
                .orElseThrow()
                .unlock();
        closing.close();

        // The client lives on, so only the provider can give these back.
        await().atMost(Duration.ofSeconds(30)).until(() -> sharedClient.heldCount() == 0);
        assertThat(takenBy(other)).isTrue();
        assertThatThrownBy(() -> closing.lock(config(Duration.ofMinutes(5), Duration.ZERO)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        running.unlock();
        assertThat(FencingContext.current()).isEmpty();
    }

    @Test
    void lockOfAHolderThatFellSilentEndsWithItsLeaseLongBeforeLockAtMostUntil() {
        LockClient silentClient = client(builder -> {});
        FenceLockProvider silent = closeLater(FenceLockProvider.builder(silentClient)
                .leaseTtl(Duration.ofSeconds(2))
                .build());
        FenceLockProvider other = provider();
        LockConfiguration config = config(Duration.ofMinutes(10), Duration.ZERO);

        SimpleLock lock = silent.lock(config).orElseThrow();
        freezeRenewals(silentClient);

        // The 2 s lease ends it; lockAtMostFor's 10 minutes are far away.
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> takenBy(other));
        assertThat(ClockProvider.now()).isBefore(config.getLockAtMostUntil());
        assertThat(((FencedSimpleLock) lock).isValid()).isFalse();
        lock.unlock();
    }

    @Test
    void lockAtMostForAboveTheMaximumLeaseTtlIsAcceptedAsATimer() {
        LockClient client =
                client(builder -> builder.defaultLeaseTtl(Duration.ofSeconds(5)).maxLeaseTtl(Duration.ofSeconds(5)));
        FenceLockProvider mine = closeLater(new FenceLockProvider(client));
        FenceLockProvider other = provider();

        SimpleLock lock = mine.lock(config(Duration.ofHours(1), Duration.ZERO)).orElseThrow();
        assertThat(takenBy(other)).isFalse();
        lock.unlock();
        assertThat(takenBy(other)).isTrue();
    }

    @Test
    void lockAtLeastForAboveTheMaximumLeaseTtlFailsClearlyAndHoldsNothing() {
        LockClient client =
                client(builder -> builder.defaultLeaseTtl(Duration.ofSeconds(5)).maxLeaseTtl(Duration.ofSeconds(5)));
        FenceLockProvider mine = closeLater(new FenceLockProvider(client));
        FenceLockProvider other = provider();

        assertThatThrownBy(() -> mine.lock(config(Duration.ofHours(1), Duration.ofSeconds(30))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtLeastFor PT30S")
                .hasMessageContaining("'" + this.name + "'")
                .hasMessageContaining("fencelock.max-lease-ttl");
        assertThat(takenBy(other)).isTrue();
        assertThat(client.heldCount()).isZero();
    }

    @Test
    void lockWhoseLockAtMostUntilHasPassedIsNotTaken() {
        FenceLockProvider mine = provider();
        LockConfiguration config = new LockConfiguration(
                ClockProvider.now().minusSeconds(1), this.name, Duration.ofMillis(10), Duration.ZERO);

        assertThat(mine.lock(config)).isEmpty();
        assertThat(takenBy(provider())).isTrue();
    }

    @Test
    void extendedLockOutlivesItsFirstDeadline() {
        FenceLockProvider mine = provider();
        FenceLockProvider other = provider();
        // Long enough that the extension comes before the first deadline on a loaded machine.
        LockConfiguration config = config(Duration.ofSeconds(2), Duration.ZERO);

        SimpleLock lock = mine.lock(config).orElseThrow();
        SimpleLock extended = lock.extend(Duration.ofSeconds(10), Duration.ZERO).orElseThrow();

        // Past the first deadline: the window starts after the lock was taken and lasts longer.
        await().during(Duration.ofMillis(2500))
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> !takenBy(other));
        assertThat(ClockProvider.now()).isAfter(config.getLockAtMostUntil());
        extended.unlock();
        assertThat(takenBy(other)).isTrue();
    }

    @Test
    void lockCanBeExtendedManyTimesAndKeepsItsToken() {
        FenceLockProvider mine = provider();
        FenceLockProvider other = provider();

        FencedSimpleLock lock = (FencedSimpleLock)
                mine.lock(config(Duration.ofSeconds(2), Duration.ZERO)).orElseThrow();
        long token = lock.fencingToken();
        SimpleLock current = lock;
        for (int i = 0; i < 3; i++) {
            current = current.extend(Duration.ofSeconds(10), Duration.ZERO).orElseThrow();
        }
        assertThat(((FencedSimpleLock) current).fencingToken()).isEqualTo(token);
        assertThat(((FencedSimpleLock) current).lockAtMostUntil()).isAfter(lock.lockAtMostUntil());
        assertThat(FencingContext.current().map(Fence::token)).contains(token);
        assertThat(takenBy(other)).isFalse();

        current.unlock();
        assertThat(takenBy(other)).isTrue();
    }

    @Test
    void extendFailsOnceTheDeadlineHasPassedAndTheLockIsFree() {
        FenceLockProvider mine = provider();
        FenceLockProvider other = provider();
        LockConfiguration config = config(Duration.ofMillis(200), Duration.ZERO);

        SimpleLock lock = mine.lock(config).orElseThrow();
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> ClockProvider.now().isAfter(config.getLockAtMostUntil()));

        assertThat(lock.extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
        assertThat(takenBy(other)).isTrue();
        // ShedLock's executor unlocks the lock it could not extend: it ends the hold and says why.
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("could not be extended");
        assertThat(FencingContext.current()).isEmpty();
    }

    @Test
    void lockAtLeastForOfAnExtensionKeepsTheLockAfterUnlock() {
        FenceLockProvider mine = provider();
        FenceLockProvider other = provider();

        SimpleLock lock =
                mine.lock(config(Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
        SimpleLock extended =
                lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(9)).orElseThrow();
        extended.unlock();

        assertThat(takenBy(other)).isFalse();
    }

    @Test
    void usedLocksRefuseToBeUnlockedOrExtendedAgain() {
        FenceLockProvider mine = provider();

        SimpleLock unlocked =
                mine.lock(config(Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
        unlocked.unlock();
        assertThatThrownBy(unlocked::unlock).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> unlocked.extend(Duration.ofSeconds(10), Duration.ZERO))
                .isInstanceOf(IllegalStateException.class);

        SimpleLock original =
                mine.lock(config(Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
        SimpleLock extended =
                original.extend(Duration.ofSeconds(10), Duration.ZERO).orElseThrow();
        assertThatThrownBy(original::unlock).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> original.extend(Duration.ofSeconds(10), Duration.ZERO))
                .isInstanceOf(IllegalStateException.class);
        extended.unlock();
    }

    @Test
    void lockPutsItsFenceOnTheLockingThreadUntilUnlockAndTokensGrow() {
        FenceLockProvider mine = provider();
        FenceLockProvider other = provider();

        FencedSimpleLock first = (FencedSimpleLock)
                mine.lock(config(Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
        Fence fence = FencingContext.current().orElseThrow();
        assertThat(fence.resource()).isEqualTo(FenceLockProvider.DEFAULT_RESOURCE_PREFIX + this.name);
        assertThat(fence.token()).isEqualTo(first.fencingToken());
        assertThat(first.resource()).isEqualTo(fence.resource());
        first.unlock();
        assertThat(FencingContext.current()).isEmpty();

        FencedSimpleLock second = (FencedSimpleLock)
                other.lock(config(Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        second.unlock();
    }

    @Test
    void providerWithoutPushedFencesLeavesTheContextAlone() {
        FenceLockProvider quiet = closeLater(FenceLockProvider.builder(client(builder -> {}))
                .pushFence(false)
                .build());

        SimpleLock lock =
                quiet.lock(config(Duration.ofSeconds(10), Duration.ZERO)).orElseThrow();
        assertThat(FencingContext.current()).isEmpty();
        lock.unlock();
    }

    @Test
    void tasksOfShedLocksExecutorAreFencedAndCanExtendTheirLock() {
        FenceLockProvider mine = provider();
        FenceLockProvider other = provider();
        AtomicReference<Fence> seen = new AtomicReference<>();
        AtomicReference<Boolean> otherGotIt = new AtomicReference<>();

        new DefaultLockingTaskExecutor(mine)
                .executeWithLock(
                        (Runnable) () -> {
                            seen.set(FencingContext.current().orElseThrow());
                            LockExtender.extendActiveLock(Duration.ofSeconds(10), Duration.ZERO);
                            otherGotIt.set(takenBy(other));
                        },
                        config(Duration.ofSeconds(5), Duration.ZERO));

        assertThat(seen.get().resource()).isEqualTo(FenceLockProvider.DEFAULT_RESOURCE_PREFIX + this.name);
        assertThat(seen.get().isValid()).as("released after the task").isFalse();
        assertThat(otherGotIt.get()).isFalse();
        assertThat(FencingContext.current()).isEmpty();
        assertThat(takenBy(other)).isTrue();
    }

    @Test
    void unlockOnAnotherThreadReleasesTheLockButCannotReachTheLockingThreadsFence() throws Exception {
        FenceLockProvider mine = provider();
        FenceLockProvider other = provider();
        ExecutorService lockingThread = Executors.newSingleThreadExecutor();
        try {
            SimpleLock lock = lockingThread
                    .submit(() -> mine.lock(config(Duration.ofSeconds(10), Duration.ZERO))
                            .orElseThrow())
                    .get();

            lock.unlock();

            assertThat(takenBy(other)).isTrue();
            assertThat(FencingContext.current()).isEmpty();
            List<Fence> left = lockingThread.submit(FencingContext::all).get();
            assertThat(left)
                    .singleElement()
                    .satisfies(fence -> assertThat(fence.isValid())
                            .as("a fence left behind refuses writes instead of allowing them")
                            .isFalse());
        } finally {
            lockingThread.shutdownNow();
        }
    }

    @Test
    void manyThreadsOfTwoInstancesNeverRunTogether() throws Exception {
        List<FenceLockProvider> providers = List.of(provider(), provider());
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger runs = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                FenceLockProvider provider = providers.get(t % 2);
                workers.add(threads.submit(() -> {
                    for (int i = 0; i < fuzzIterations(); i++) {
                        Optional<SimpleLock> lock = provider.lock(config(Duration.ofMinutes(5), Duration.ZERO));
                        if (lock.isPresent()) {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            runs.incrementAndGet();
                            Thread.yield();
                            inside.decrementAndGet();
                            lock.get().unlock();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get();
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(overlaps.get()).isZero();
        assertThat(runs.get()).isPositive();
    }

    private LockConfiguration config(Duration lockAtMostFor, Duration lockAtLeastFor) {
        return new LockConfiguration(ClockProvider.now(), this.name, lockAtMostFor, lockAtLeastFor);
    }

    /** Whether {@code provider} gets the test's lock right now; it gives it back at once. */
    private boolean takenBy(FenceLockProvider provider) {
        Optional<SimpleLock> lock = provider.lock(config(Duration.ofMinutes(5), Duration.ZERO));
        lock.ifPresent(SimpleLock::unlock);
        return lock.isPresent();
    }

    private FenceLockProvider provider() {
        return closeLater(new FenceLockProvider(client(builder -> {})));
    }

    private LockClient client(Consumer<LockClientBuilder> customizer) {
        return closeLater(createClient(customizer));
    }

    private <T extends AutoCloseable> T closeLater(T closeable) {
        this.closeables.add(closeable);
        return closeable;
    }
}
