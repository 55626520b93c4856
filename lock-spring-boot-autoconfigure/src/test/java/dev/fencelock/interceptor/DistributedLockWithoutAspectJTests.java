package dev.fencelock.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.FencingContext;
import dev.fencelock.LockClient;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.framework.autoproxy.InfrastructureAdvisorAutoProxyCreator;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * An application without AspectJ's weaver (and one with {@code spring.aop.auto=false}) still runs
 * {@code @DistributedLock} methods under their lock: two threads never overlap in the method, and
 * each sees its own fencing token. Before the advisor, such methods ran unlocked without a word.
 */
class DistributedLockWithoutAspectJTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withClassLoader(new FilteredClassLoader("org.aspectj"))
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class, FenceLockEtcdAutoConfiguration.class, FenceLockAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory")
            .withBean(Dock.class, () -> new Dock(new Turns()));

    @Test
    void withoutAspectJTwoThreadsShouldTakeTurnsWithGrowingTokens() {
        this.runner.run((context) -> {
            // Spring's own creator, not AspectJ's: the weaver really is absent.
            assertThat(context.getBean(AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME))
                    .isExactlyInstanceOf(InfrastructureAdvisorAutoProxyCreator.class);
            assertTwoThreadsTakeTurns(context);
        });
    }

    /**
     * {@code spring.aop.auto=false} turns off auto-proxying of {@code @Aspect} beans; like
     * {@code @Transactional}, the lock advisor brings its own auto-proxy creator and still locks.
     */
    @Test
    void withAopAutoFalseTwoThreadsShouldStillTakeTurns() {
        this.runner.withPropertyValues("spring.aop.auto=false").run((context) -> {
            assertThat(context).doesNotHaveBean(AopAutoConfiguration.class);
            assertTwoThreadsTakeTurns(context);
        });
    }

    @Test
    void withoutSpringBootsAopAutoConfigurationTwoThreadsShouldStillTakeTurns() {
        new ApplicationContextRunner()
                .withClassLoader(new FilteredClassLoader("org.aspectj"))
                .withConfiguration(AutoConfigurations.of(FenceLockAutoConfiguration.class))
                .withPropertyValues("fencelock.backend=in-memory")
                .withBean(Dock.class, () -> new Dock(new Turns()))
                .run(DistributedLockWithoutAspectJTests::assertTwoThreadsTakeTurns);
    }

    private static void assertTwoThreadsTakeTurns(ApplicationContext context) throws Exception {
        Dock dock = context.getBean(Dock.class);
        Turns turns = dock.turns();
        LockClient client = context.getBean(LockClient.class);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<Long> first = threads.submit(() -> dock.occupy(true));
            assertThat(turns.entered.await(10, TimeUnit.SECONDS)).isTrue();
            Future<Long> second = threads.submit(() -> dock.occupy(false));
            await().atMost(Duration.ofSeconds(10)).until(() -> client.waitingCount() == 1);
            assertThat(turns.entries)
                    .as("the second thread waits while the first holds the lock")
                    .hasValue(1);
            turns.leave.countDown();
            long firstToken = first.get(10, TimeUnit.SECONDS);
            long secondToken = second.get(10, TimeUnit.SECONDS);
            assertThat(firstToken).isPositive();
            assertThat(secondToken).isGreaterThan(firstToken);
            assertThat(turns.entries).hasValue(2);
            assertThat(turns.mostInside).hasValue(1);
            assertThat(client.heldCount()).isZero();
        } finally {
            threads.shutdownNow();
        }
    }

    /** What the two threads did, kept outside the proxied bean, whose proxy has no state of its own. */
    public static final class Turns {

        final CountDownLatch entered = new CountDownLatch(1);

        final CountDownLatch leave = new CountDownLatch(1);

        final AtomicInteger entries = new AtomicInteger();

        final AtomicInteger inside = new AtomicInteger();

        final AtomicInteger mostInside = new AtomicInteger();
    }

    public static class Dock {

        private final Turns turns;

        public Dock(Turns turns) {
            this.turns = turns;
        }

        public Turns turns() {
            return this.turns;
        }

        /** Returns the fencing token the call ran under; the first caller stays until told to leave. */
        @DistributedLock(name = "dock", waitTimeout = "30s")
        public long occupy(boolean first) throws InterruptedException {
            Turns turns = this.turns;
            turns.entries.incrementAndGet();
            turns.mostInside.accumulateAndGet(turns.inside.incrementAndGet(), Math::max);
            try {
                long token = FencingContext.current().orElseThrow().token();
                if (first) {
                    turns.entered.countDown();
                    turns.leave.await(10, TimeUnit.SECONDS);
                }
                return token;
            } finally {
                turns.inside.decrementAndGet();
            }
        }
    }
}
