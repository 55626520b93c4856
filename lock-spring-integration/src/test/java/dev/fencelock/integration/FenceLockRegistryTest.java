package dev.fencelock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.LockClient;
import dev.fencelock.LockLostException;
import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.memory.InMemoryLockStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The lock semantics Spring Integration relies on, on the in-memory backend: two registries on
 * two clients sharing one store play two processes.
 */
class FenceLockRegistryTest {

    private final InMemoryLockStore store = new InMemoryLockStore();

    private final List<AutoCloseable> closeables = new ArrayList<>();

    private final ExecutorService threads = Executors.newCachedThreadPool();

    private final String key = "orders-" + UUID.randomUUID();

    @AfterEach
    void closeEverything() throws Exception {
        this.threads.shutdownNow();
        for (int i = this.closeables.size() - 1; i >= 0; i--) {
            this.closeables.get(i).close();
        }
        this.store.close();
        List<Fence> left = FencingContext.all();
        FencingContext.setAll(List.of());
        assertThat(left).as("fences left on the test thread").isEmpty();
    }

    @Test
    void obtainReturnsOneLockPerStringKey() {
        FenceLockRegistry registry = registry();

        assertThat(registry.obtain(this.key)).isSameAs(registry.obtain(this.key));
        assertThat(registry.obtain(this.key).resource()).isEqualTo(FenceLockRegistry.DEFAULT_KEY_PREFIX + this.key);
        assertThatThrownBy(() -> registry.obtain(42))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Integer");
    }

    @Test
    void lockExcludesAnotherProcessUntilUnlocked() throws Exception {
        FencedLock mine = registry().obtain(this.key);
        FencedLock theirs = registry().obtain(this.key);

        mine.lock();
        assertThat(inOtherThread(() -> theirs.tryLock())).isFalse();

        mine.unlock();
        assertThat(inOtherThread(() -> {
                    boolean locked = theirs.tryLock();
                    theirs.unlock();
                    return locked;
                }))
                .isTrue();
    }

    @Test
    void lockIsReentrantPerThreadWithOneTokenAndOneFence() throws Exception {
        FencedLock mine = registry().obtain(this.key);
        FencedLock theirs = registry().obtain(this.key);

        mine.lock();
        long token = mine.fencingToken();
        assertThat(mine.tryLock()).isTrue();
        assertThat(mine.fencingToken()).isEqualTo(token);
        assertThat(FencingContext.all()).singleElement().satisfies(fence -> {
            assertThat(fence.resource()).isEqualTo(mine.resource());
            assertThat(fence.token()).isEqualTo(token);
        });

        mine.unlock();
        assertThat(mine.isHeldByCurrentThread()).isTrue();
        assertThat(inOtherThread(() -> theirs.tryLock())).isFalse();

        mine.unlock();
        assertThat(mine.isHeldByCurrentThread()).isFalse();
        assertThat(FencingContext.current()).isEmpty();
        assertThatThrownBy(mine::fencingToken).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anotherThreadOfTheSameProcessWaitsForTheHolder() throws Exception {
        FencedLock lock = registry().obtain(this.key);

        lock.lock();
        assertThat(inOtherThread(() -> lock.tryLock())).isFalse();
        Future<Long> waiter = this.threads.submit(() -> {
            assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
            try {
                return lock.fencingToken();
            } finally {
                lock.unlock();
            }
        });
        long first = lock.fencingToken();
        lock.unlock();

        assertThat(waiter.get(15, TimeUnit.SECONDS)).isGreaterThan(first);
    }

    @Test
    void onlyTheHoldingThreadMayUnlock() throws Exception {
        FencedLock lock = registry().obtain(this.key);

        lock.lock();
        Future<?> stranger = this.threads.submit(lock::unlock);
        assertThatThrownBy(() -> stranger.get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("only the thread that locked it may unlock it");
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void tryLockWaitsForAnotherProcessToUnlockAndGetsALargerToken() throws Exception {
        FencedLock mine = registry().obtain(this.key);
        FencedLock theirs = registry().obtain(this.key);
        mine.lock();
        long first = mine.fencingToken();
        CountDownLatch waiting = new CountDownLatch(1);

        Future<Long> waiter = this.threads.submit(() -> {
            waiting.countDown();
            assertThat(theirs.tryLock(10, TimeUnit.SECONDS)).isTrue();
            try {
                return theirs.fencingToken();
            } finally {
                theirs.unlock();
            }
        });
        waiting.await();
        mine.unlock();

        assertThat(waiter.get(15, TimeUnit.SECONDS)).isGreaterThan(first);
    }

    @Test
    void tryLockThatRunsOutOfTimeHoldsNothing() throws Exception {
        FencedLock mine = registry().obtain(this.key);
        FencedLock theirs = registry().obtain(this.key);
        mine.lock();

        assertThat(inOtherThread(() -> {
                    boolean locked = theirs.tryLock(Duration.ofMillis(300), Duration.ofSeconds(5));
                    return !locked
                            && !theirs.isHeldByCurrentThread()
                            && FencingContext.current().isEmpty();
                }))
                .isTrue();
        mine.unlock();
    }

    @Test
    void lockInterruptiblyGivesUpWhenInterrupted() throws Exception {
        FencedLock mine = registry().obtain(this.key);
        FencedLock theirs = registry().obtain(this.key);
        mine.lock();
        CountDownLatch started = new CountDownLatch(1);
        AtomicReference<Thread> waiterThread = new AtomicReference<>();

        Future<Boolean> waiter = this.threads.submit(() -> {
            waiterThread.set(Thread.currentThread());
            started.countDown();
            try {
                theirs.lockInterruptibly();
                return false;
            } catch (InterruptedException expected) {
                return !theirs.isHeldByCurrentThread();
            }
        });
        started.await();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> this.store.keysOf(mine.resource()).size() == 2);
        waiterThread.get().interrupt();

        assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
        mine.unlock();
    }

    @Test
    void registryBuiltWithoutFencedWritesLeavesTheContextAlone() {
        FencedLock lock =
                FenceLockRegistry.builder(client()).fenceWrites(false).build().obtain(this.key);

        lock.lock();
        assertThat(FencingContext.current()).isEmpty();
        assertThat(lock.fence()).isPresent();
        lock.unlock();
    }

    @Test
    void executeLockedRunsTheTaskUnderTheFence() throws Exception {
        FenceLockRegistry registry = registry();
        AtomicReference<Fence> seen = new AtomicReference<>();

        registry.executeLocked(this.key, () -> seen.set(FencingContext.current().orElseThrow()));

        assertThat(seen.get().resource()).isEqualTo(FenceLockRegistry.DEFAULT_KEY_PREFIX + this.key);
        assertThat(seen.get().isValid()).as("released after the task").isFalse();
        assertThat(FencingContext.current()).isEmpty();
    }

    @Test
    void lostLockIsReportedOnReEntryAndOnUnlockThenTakenAnewWithALargerToken() throws Exception {
        LockClient frozenClient = client();
        FencedLock mine = FenceLockRegistry.builder(frozenClient)
                .leaseTtl(Duration.ofSeconds(1))
                .build()
                .obtain(this.key);
        FencedLock theirs = registry().obtain(this.key);

        mine.lock();
        long lostToken = mine.fencingToken();
        Fence fence = mine.fence().orElseThrow();
        ((InMemoryLockBackend) frozenClient.backend()).pauseRenewals();
        await().atMost(Duration.ofSeconds(10)).until(() -> !fence.isValid());

        assertThatThrownBy(mine::tryLock)
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("token " + lostToken)
                .hasMessageContaining("unlock it, then lock it anew");
        assertThatThrownBy(mine::unlock).isInstanceOf(LockLostException.class);
        assertThat(mine.isHeldByCurrentThread()).isFalse();
        assertThat(FencingContext.current()).isEmpty();

        assertThat(inOtherThread(() -> {
                    theirs.lock();
                    try {
                        return theirs.fencingToken();
                    } finally {
                        theirs.unlock();
                    }
                }))
                .isGreaterThan(lostToken);
    }

    @Test
    void renewLockConfirmsTheHoldOfTheCallingThreadOnly() throws Exception {
        FenceLockRegistry registry = FenceLockRegistry.builder(client())
                .leaseTtl(Duration.ofSeconds(5))
                .build();
        FencedLock lock = registry.obtain(this.key);

        assertThatThrownBy(() -> registry.renewLock(this.key)).isInstanceOf(IllegalStateException.class);
        lock.lock();
        registry.renewLock(this.key);
        registry.renewLock(this.key, Duration.ofMillis(4500));
        assertThatThrownBy(() -> registry.renewLock(this.key, Duration.ofSeconds(30)))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("PT5S");
        assertThat(inOtherThread(() -> {
                    try {
                        registry.renewLock(this.key);
                        return false;
                    } catch (IllegalStateException expected) {
                        return true;
                    }
                }))
                .isTrue();
        lock.unlock();
    }

    @Test
    void expiryForgetsUnusedLocksButNeverAHeldOne() {
        FenceLockRegistry registry = registry();
        FencedLock held = registry.obtain(this.key);
        FencedLock unused = registry.obtain(this.key + "-unused");
        held.lock();

        registry.expireUnusedOlderThan(-1);

        assertThat(registry.obtain(this.key)).isSameAs(held);
        assertThat(registry.obtain(this.key + "-unused")).isNotSameAs(unused);
        held.unlock();
    }

    private <T> T inOtherThread(java.util.concurrent.Callable<T> task) throws Exception {
        return CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return task.call();
                            } catch (Exception ex) {
                                throw new IllegalStateException(ex);
                            }
                        },
                        this.threads)
                .get(15, TimeUnit.SECONDS);
    }

    private FenceLockRegistry registry() {
        return new FenceLockRegistry(client());
    }

    private LockClient client() {
        LockClient client =
                LockClient.builder(InMemoryLockBackend.sharing(this.store)).build();
        this.closeables.add(client);
        return client;
    }
}
