package dev.fencelock.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.FencingContext;
import dev.fencelock.LockClient;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** Two application instances contending for one key on a real etcd member. */
class DistributedLockEtcdTests {

    private static final int THREADS_PER_INSTANCE = 3;

    private static final int CALLS_PER_THREAD = 10;

    @RegisterExtension
    static EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    @Test
    void instancesContendingForOneKeyShouldRunOneAtATimeWithGrowingTokens() throws Exception {
        CriticalSection section = new CriticalSection();
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class))
                .withPropertyValues("fencelock.etcd.endpoints=" + String.join(",", etcd.endpoints()))
                .withBean(CriticalSection.class, () -> section)
                .withBean(Counter.class);
        runner.run((first) -> runner.run((second) -> {
            contend(first, second);
            assertThat(first.getBean(LockClient.class).heldCount()).isZero();
            assertThat(second.getBean(LockClient.class).heldCount()).isZero();
        }));
        int total = 2 * THREADS_PER_INSTANCE * CALLS_PER_THREAD;
        assertThat(section.maxInside).hasValue(1);
        assertThat(section.tokens).hasSize(total);
        assertThat(section.tokens).isSorted().doesNotHaveDuplicates();
        assertThat(section.entriesByInstance).containsOnlyKeys("first", "second");
    }

    private void contend(ApplicationContext first, ApplicationContext second) throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(2 * THREADS_PER_INSTANCE);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> workers = new ArrayList<>();
            for (ApplicationContext context : List.of(first, second)) {
                Counter counter = context.getBean(Counter.class);
                String instance = (context == first) ? "first" : "second";
                for (int t = 0; t < THREADS_PER_INSTANCE; t++) {
                    workers.add(executor.submit(() -> {
                        start.await();
                        for (int i = 0; i < CALLS_PER_THREAD; i++) {
                            counter.increment(instance);
                        }
                        return null;
                    }));
                }
            }
            start.countDown();
            for (Future<?> worker : workers) {
                worker.get(60, TimeUnit.SECONDS);
            }
        } finally {
            executor.shutdownNow();
        }
    }

    /** Shared by both instances, as a database would be: it sees every entry in lock order. */
    static class CriticalSection {

        final AtomicInteger inside = new AtomicInteger();

        final AtomicInteger maxInside = new AtomicInteger();

        final List<Long> tokens = new ArrayList<>();

        final java.util.Map<String, Integer> entriesByInstance = new java.util.concurrent.ConcurrentHashMap<>();

        void enter(String instance) {
            int now = this.inside.incrementAndGet();
            this.maxInside.accumulateAndGet(now, Math::max);
            synchronized (this.tokens) {
                this.tokens.add(FencingContext.current().orElseThrow().token());
            }
            this.entriesByInstance.merge(instance, 1, Integer::sum);
            for (int i = 0; i < 100; i++) {
                Thread.yield();
            }
            this.inside.decrementAndGet();
        }
    }

    public static class Counter {

        private final CriticalSection section;

        public Counter(CriticalSection section) {
            this.section = section;
        }

        @DistributedLock(name = "shared-counter", waitTimeout = "30s")
        public void increment(String instance) {
            this.section.enter(instance);
        }
    }
}
