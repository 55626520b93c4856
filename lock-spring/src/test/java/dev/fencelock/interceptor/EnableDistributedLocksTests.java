package dev.fencelock.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.annotation.LockNotAcquiredPolicy;
import dev.fencelock.memory.InMemoryLockBackend;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

/**
 * {@code @DistributedLock} in a Spring Framework application without Spring Boot (none is on this
 * module's class path): {@link EnableDistributedLocks} and a {@link LockClient} bean are all it
 * takes.
 */
class EnableDistributedLocksTests {

    private final ExecutorService threads = Executors.newFixedThreadPool(2);

    private @Nullable AnnotationConfigApplicationContext context;

    @AfterEach
    void close() throws InterruptedException {
        this.threads.shutdownNow();
        assertThat(this.threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        if (this.context != null) {
            this.context.close();
        }
    }

    @Test
    void lockedCallShouldRunUnderItsLockWithTheFenceInTheContext() throws Exception {
        start(Map.of(), LockConfiguration.class);
        LockClient client = this.context.getBean(LockClient.class);
        Orders orders = this.context.getBean(Orders.class);
        assertThat(AopUtils.isAopProxy(orders)).isTrue();

        List<Object> inside = orders.ship(new Order("o-42"), () -> List.of(client.heldLocks(), FencingContext.all()));

        assertThat((List<?>) inside.get(0))
                .singleElement()
                .extracting((held) -> ((LockClient.HeldLock) held).resource())
                .isEqualTo("order:o-42");
        assertThat((List<?>) inside.get(1)).singleElement().satisfies((fence) -> {
            assertThat(((Fence) fence).resource()).isEqualTo("order:o-42");
            assertThat(((Fence) fence).token()).isPositive();
        });
        assertThat(FencingContext.all()).isEmpty();
        assertThat(client.heldCount()).isZero();
    }

    @Test
    void keyExpressionsShouldResolveFromTheParameters() throws Exception {
        start(Map.of(), LockConfiguration.class);
        Orders orders = this.context.getBean(Orders.class);

        List<String> resources = orders.transfer(
                "a-1",
                "a-2",
                () -> FencingContext.all().stream().map(Fence::resource).toList());

        assertThat(resources).containsExactly("account:a-1", "account:a-2");
    }

    @Test
    void twoThreadsOnOneKeyShouldRunOneAfterTheOther() throws Exception {
        start(Map.of(), LockConfiguration.class);
        LockClient client = this.context.getBean(LockClient.class);
        Orders orders = this.context.getBean(Orders.class);
        List<String> events = new CopyOnWriteArrayList<>();
        CountDownLatch firstInside = new CountDownLatch(1);
        CountDownLatch firstMayLeave = new CountDownLatch(1);

        Future<Long> first = this.threads.submit(() -> orders.ship(new Order("o-7"), () -> {
            events.add("first in");
            firstInside.countDown();
            awaitLatch(firstMayLeave);
            events.add("first out");
            return FencingContext.current().orElseThrow().token();
        }));
        awaitLatch(firstInside);
        Future<Long> second = this.threads.submit(() -> orders.ship(new Order("o-7"), () -> {
            events.add("second in");
            return FencingContext.current().orElseThrow().token();
        }));
        await().atMost(Duration.ofSeconds(30)).until(() -> client.waitingCount() == 1);
        assertThat(events).containsExactly("first in");
        firstMayLeave.countDown();

        long firstToken = first.get(30, TimeUnit.SECONDS);
        long secondToken = second.get(30, TimeUnit.SECONDS);
        assertThat(events).containsExactly("first in", "first out", "second in");
        assertThat(secondToken).isGreaterThan(firstToken);
    }

    @Test
    void busyLockShouldThrowOrSkipAsTheMethodSays() {
        start(Map.of(), LockConfiguration.class);
        LockClient client = this.context.getBean(LockClient.class);
        Orders orders = this.context.getBean(Orders.class);
        LockLease held = client.acquire(LockRequest.of("report"));
        try {
            assertThatExceptionOfType(LockAcquisitionTimeoutException.class).isThrownBy(orders::reportOrThrow);
            assertThat(orders.reportOrSkip()).isFalse();
            assertThat(orders.reportIfFree()).isEmpty();
            assertThat(orders.reports()).isZero();
        } finally {
            held.release();
        }
        assertThat(orders.reportOrSkip()).isTrue();
        assertThat(orders.reportIfFree()).contains("report");
        assertThat(orders.reports()).isEqualTo(2);
    }

    @Test
    void applicationsOwnKeyResolverShouldReplaceTheDefault() throws Exception {
        start(Map.of(), LockConfiguration.class, OwnResolverConfiguration.class);
        Orders orders = this.context.getBean(Orders.class);

        assertThat(this.context.getBeansOfType(LockKeyResolver.class)).containsOnlyKeys("ownResolver");
        assertThat(orders.ship(
                        new Order("o-1"),
                        () -> FencingContext.current().orElseThrow().resource()))
                .isEqualTo("own:o-1");
    }

    @Test
    void settingsShouldBeReadFromTheEnvironment() {
        start(Map.of("fencelock.aspect.order", "42"), LockConfiguration.class);

        assertThat(this.context.getBean(DistributedLockAdvisor.class).getOrder())
                .isEqualTo(42);
        assertThat(this.context.containsBean("fenceLockCallTransactionListenerPostProcessor"))
                .isTrue();
    }

    @Test
    void advisorShouldRunAheadOfTransactionsByDefault() {
        start(Map.of(), LockConfiguration.class);

        assertThat(this.context.getBean(DistributedLockAdvisor.class).getOrder())
                .isEqualTo(DistributedLockAdvisor.DEFAULT_ORDER);
    }

    private void start(Map<String, Object> properties, Class<?>... configurations) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test", properties));
        context.register(configurations);
        this.context = context;
        context.refresh();
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch not released within 30 s");
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDistributedLocks
    static class LockConfiguration {

        @Bean(destroyMethod = "close")
        LockClient lockClient() {
            return LockClient.builder(new InMemoryLockBackend())
                    .defaultWaitTimeout(Duration.ofSeconds(30))
                    .build();
        }

        @Bean
        Orders orders() {
            return new Orders();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnResolverConfiguration {

        @Bean
        LockKeyResolver ownResolver() {
            return new LockKeyResolver() {
                @Override
                public String resolve(String expression, Method method, @Nullable Object[] arguments) {
                    return "own:" + ((Order) arguments[0]).id();
                }
            };
        }
    }

    record Order(String id) {}

    static class Orders {

        private final AtomicInteger reports = new AtomicInteger();

        @DistributedLock(key = "'order:' + #order.id")
        public <T> T ship(Order order, ThrowingSupplier<T> work) throws Exception {
            return work.get();
        }

        @DistributedLock(keys = {"'account:' + #to", "'account:' + #from"})
        public <T> T transfer(String from, String to, ThrowingSupplier<T> work) throws Exception {
            return work.get();
        }

        @DistributedLock(name = "report", waitTimeout = "0s")
        public void reportOrThrow() {
            this.reports.incrementAndGet();
        }

        @DistributedLock(name = "report", waitTimeout = "0", onNotAcquired = LockNotAcquiredPolicy.SKIP)
        public boolean reportOrSkip() {
            this.reports.incrementAndGet();
            return true;
        }

        @DistributedLock(name = "report", waitTimeout = "PT0S", onNotAcquired = LockNotAcquiredPolicy.SKIP)
        public Optional<String> reportIfFree() {
            this.reports.incrementAndGet();
            return Optional.of("report");
        }

        int reports() {
            return this.reports.get();
        }
    }

    @FunctionalInterface
    interface ThrowingSupplier<T> {
        T get() throws Exception;
    }
}
