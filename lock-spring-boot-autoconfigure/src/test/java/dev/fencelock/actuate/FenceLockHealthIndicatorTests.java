package dev.fencelock.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendHealth;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockAdministration;
import dev.fencelock.spi.LockBackend;
import dev.fencelock.spi.QueueEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

class FenceLockHealthIndicatorTests {

    private final ScriptedHealthBackend backend = new ScriptedHealthBackend();

    private final LockClient client = LockClient.builder(this.backend).build();

    private final AtomicLong nanos = new AtomicLong();

    @AfterEach
    void closeClient() {
        this.client.close();
    }

    @Test
    void healthWhenStoreIsUpShouldBeUpWithItsDetailsAndHeldLocks() {
        this.backend.answer(() -> CompletableFuture.completedFuture(
                new BackendHealth(true, Map.of("endpoints", List.of("http://etcd-1:2379"), "memberCount", 3))));
        this.client.acquire(LockRequest.of("order:1"));
        Health health = indicator(Duration.ofSeconds(5)).health();
        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails())
                .containsEntry("backend", "in-memory")
                .containsEntry("endpoints", List.of("http://etcd-1:2379"))
                .containsEntry("memberCount", 3)
                .containsEntry("heldLocks", 1);
    }

    @Test
    void healthWhenStoreIsDownShouldBeDownWithTheError() {
        this.backend.answer(() -> CompletableFuture.completedFuture(
                new BackendHealth(false, Map.of("error", "etcd did not answer a health read within 2000 ms"))));
        Health health = indicator(Duration.ofSeconds(5)).health();
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails()).containsEntry("error", "etcd did not answer a health read within 2000 ms");
    }

    @Test
    void healthWhenBackendThrowsShouldBeDown() {
        this.backend.answer(() -> {
            throw new IllegalStateException("broken");
        });
        Health health = indicator(Duration.ofSeconds(5)).health();
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails().get("error").toString()).contains("broken");
    }

    @Test
    void healthShouldReuseAResultUntilTheCacheTtlPassed() {
        this.backend.answer(() -> CompletableFuture.completedFuture(new BackendHealth(true, Map.of())));
        FenceLockHealthIndicator indicator = indicator(Duration.ofSeconds(5));
        indicator.health();
        this.nanos.addAndGet(Duration.ofSeconds(4).toNanos());
        indicator.health();
        assertThat(this.backend.healthCalls).hasValue(1);
        this.nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        indicator.health();
        assertThat(this.backend.healthCalls).hasValue(2);
    }

    @Test
    void callersArrivingDuringACheckShouldShareIt() throws Exception {
        CompletableFuture<BackendHealth> answer = new CompletableFuture<>();
        this.backend.answer(() -> answer);
        FenceLockHealthIndicator indicator = indicator(Duration.ZERO);
        List<Thread> threads = new CopyOnWriteArrayList<>();
        ExecutorService callers = Executors.newFixedThreadPool(8, (task) -> {
            Thread thread = new Thread(task);
            threads.add(thread);
            return thread;
        });
        try {
            List<Future<Health>> results = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                results.add(callers.submit(() -> indicator.health()));
            }
            // Every caller is parked waiting for the one check in flight.
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> threads.size() == 8
                            && threads.stream().allMatch((thread) -> thread.getState() == Thread.State.TIMED_WAITING));
            assertThat(this.backend.healthCalls).hasValue(1);
            answer.complete(new BackendHealth(true, Map.of()));
            for (Future<Health> result : results) {
                assertThat(result.get(10, TimeUnit.SECONDS).getStatus()).isEqualTo(Status.UP);
            }
        } finally {
            callers.shutdownNow();
        }
        assertThat(this.backend.healthCalls).hasValue(1);
    }

    @Test
    void callerShouldWaitAtMostTheTimeoutForAStoreThatDoesNotAnswer() {
        this.backend.answer(CompletableFuture::new);
        FenceLockHealthIndicator indicator =
                new FenceLockHealthIndicator(this.client, Duration.ofMillis(200), Duration.ofSeconds(5));
        long start = System.nanoTime();
        Health health = indicator.health();
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails().get("error").toString()).contains("did not answer within 200 ms");
        // A give-up bound, not a measure: the store never answers, so only the 200 ms timeout ends the call.
        assertThat(took).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void checkThatTheStoreNeverFinishesShouldNotBlockLaterChecks() {
        this.backend.answer(CompletableFuture::new);
        FenceLockHealthIndicator indicator =
                new FenceLockHealthIndicator(this.client, Duration.ofMillis(200), Duration.ZERO);
        assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
            assertThat(this.backend.healthCalls.get()).isGreaterThan(1);
        });
    }

    private FenceLockHealthIndicator indicator(Duration cacheTtl) {
        return new FenceLockHealthIndicator(this.client, Duration.ofSeconds(5), cacheTtl, this.nanos::get);
    }

    /** The in-memory backend, with health answers a test decides. */
    private static final class ScriptedHealthBackend implements LockBackend, LockAdministration {

        private final InMemoryLockBackend delegate = new InMemoryLockBackend();

        private final AtomicInteger healthCalls = new AtomicInteger();

        private volatile Supplier<CompletableFuture<BackendHealth>> answer =
                () -> CompletableFuture.completedFuture(new BackendHealth(true, Map.of()));

        void answer(Supplier<CompletableFuture<BackendHealth>> answer) {
            this.answer = answer;
        }

        @Override
        public String instanceId() {
            return this.delegate.instanceId();
        }

        @Override
        public CompletableFuture<BackendHealth> health(Duration timeout) {
            this.healthCalls.incrementAndGet();
            return this.answer.get();
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
            return this.delegate.release(lock);
        }

        @Override
        public CompletableFuture<List<QueueEntry>> queue(ResourceName resource) {
            return this.delegate.queue(resource);
        }

        @Override
        public CompletableFuture<Optional<QueueEntry>> forceRelease(ResourceName resource) {
            return this.delegate.forceRelease(resource);
        }

        @Override
        public String describe() {
            return this.delegate.describe();
        }

        @Override
        public void close() {
            this.delegate.close();
        }
    }
}
