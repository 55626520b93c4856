package dev.fencelock.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockClient;
import dev.fencelock.LockEventListener;
import dev.fencelock.LockException;
import dev.fencelock.LockLease;
import dev.fencelock.LockMode;
import dev.fencelock.LockRequest;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.mock.env.MockEnvironment;

/** {@code @DistributedLock} with {@code mode = SHARED}, {@code permits} and {@code keys}. */
class DistributedLockPrimitivesTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class, FenceLockEtcdAutoConfiguration.class, FenceLockAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory")
            .withUserConfiguration(ServiceConfiguration.class);

    @Test
    void readersShouldHoldTheLockTogetherWhileAWriterIsKeptOut() {
        this.runner.run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            CatalogService catalog = context.getBean(CatalogService.class);
            CountDownLatch bothInside = new CountDownLatch(2);
            List<LockMode> modes = new CopyOnWriteArrayList<>();
            Supplier<Boolean> reading = () -> {
                modes.add(FencingContext.current().orElseThrow().lease().mode());
                bothInside.countDown();
                try {
                    // Each reader waits inside until the other is inside too: they hold at the same time.
                    return bothInside.await(10, TimeUnit.SECONDS)
                            && client.tryAcquire("catalog:1").isEmpty();
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            };
            CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(() -> catalog.read(1, reading));
            CompletableFuture<Boolean> second = CompletableFuture.supplyAsync(() -> catalog.read(1, reading));
            assertThat(first.get(15, TimeUnit.SECONDS)).isTrue();
            assertThat(second.get(15, TimeUnit.SECONDS)).isTrue();
            assertThat(modes).containsExactly(LockMode.SHARED, LockMode.SHARED);
            assertThat(client.heldCount()).isZero();
        });
    }

    @Test
    void aWriterShouldReenterAsAReaderButAReaderShouldNotUpgrade() {
        this.runner.run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            CatalogService catalog = context.getBean(CatalogService.class);
            List<Long> tokens = new ArrayList<>();
            int holds = catalog.write(2, () -> {
                tokens.add(FencingContext.current().orElseThrow().token());
                return catalog.read(2, () -> {
                    tokens.add(FencingContext.current().orElseThrow().token());
                    return client.heldLocks().get(0).holds();
                });
            });
            assertThat(holds).isEqualTo(2);
            assertThat(tokens.get(1)).isEqualTo(tokens.get(0));

            assertThatExceptionOfType(LockException.class)
                    .isThrownBy(() -> catalog.read(3, () -> catalog.write(3, () -> "never")))
                    .withMessageContaining("cannot upgrade");
            assertThat(client.heldCount()).isZero();
        });
    }

    @Test
    void keysShouldBeTakenTogetherInResourceOrderWithOneFenceEach() {
        List<String> lockNames = new CopyOnWriteArrayList<>();
        this.runner
                .withBean(LockEventListener.class, () -> new LockEventListener() {
                    @Override
                    public void acquired(LockLease lease, String lockName, Duration waited, boolean reentered) {
                        lockNames.add(lease.resource() + " as " + lockName);
                    }
                })
                .run((context) -> {
                    LockClient client = context.getBean(LockClient.class);
                    TransferService transfers = context.getBean(TransferService.class);
                    List<Fence> fences = transfers.transfer(9, 4, FencingContext::all);
                    assertThat(fences).extracting(Fence::resource).containsExactly("account:4", "account:9");
                    assertThat(fences.get(0).isValid())
                            .as("released after the call")
                            .isFalse();
                    assertThat(lockNames)
                            .containsExactly("account:4 as 'account:' + #to", "account:9 as 'account:' + #from");
                    // The same account twice is one lock.
                    assertThat(transfers.transfer(5, 5, FencingContext::all)).hasSize(1);
                    assertThat(client.heldCount()).isZero();
                    assertThat(FencingContext.all()).isEmpty();
                });
    }

    @Test
    void keysShouldBeAllOrNothing() {
        this.runner.run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            TransferService transfers = context.getBean(TransferService.class);
            LockLease busy = CompletableFuture.supplyAsync(() -> client.acquire(LockRequest.of("account:8")))
                    .get(10, TimeUnit.SECONDS);
            assertThatExceptionOfType(LockAcquisitionTimeoutException.class)
                    .isThrownBy(() -> transfers.transfer(1, 8, () -> "never"))
                    .withMessageContaining("account:8");
            // account:1 was taken first and given back.
            assertThat(client.heldLocks())
                    .extracting(LockClient.HeldLock::resource)
                    .containsExactly("account:8");
            client.tryAcquire("account:1").orElseThrow().release();
            busy.release();
        });
    }

    @Test
    void permitsShouldLetThatManyCallsInAtOnce() {
        this.runner.run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            ReportService reports = context.getBean(ReportService.class);
            LockRequest permit = LockRequest.builder("reports").permits(2).build();
            boolean[] seen = reports.render(() -> {
                LockLease second = client.tryAcquire(permit).orElseThrow();
                boolean thirdKeptOut = client.tryAcquire(permit).isEmpty();
                second.release();
                return new boolean[] {
                    FencingContext.current().orElseThrow().lease().permits() == 2, thirdKeptOut
                };
            });
            assertThat(seen).containsExactly(true, true);
        });
    }

    @Test
    void aDefinitionShouldSetOneOfNameKeyAndKeysAndNoSharedSemaphore() throws Exception {
        assertThatIllegalStateException()
                .isThrownBy(() -> definition("nameAndKeys"))
                .withMessageContaining("exactly one of name")
                .withMessageContaining("both name and keys");
        assertThatIllegalStateException()
                .isThrownBy(() -> definition("sharedSemaphore"))
                .withMessageContaining("permits = 3 and mode = SHARED");
        assertThatIllegalStateException()
                .isThrownBy(() -> definition("noPermits"))
                .withMessageContaining("permits");
        LockDefinition keys = definition("keys");
        assertThat(keys.keyExpressions()).containsExactly("'a:' + #a", "'b:' + #b");
        assertThat(keys.lockDescription()).isEqualTo("keys {\"'a:' + #a\", \"'b:' + #b\"}");
    }

    private static LockDefinition definition(String methodName) throws Exception {
        Method method = Broken.class.getMethod(methodName, long.class, long.class);
        return LockDefinition.of(
                method,
                AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class),
                new MockEnvironment(),
                LockClient.builder(new dev.fencelock.memory.InMemoryLockBackend())
                        .build()
                        .settings(),
                new SpelLockKeyResolver());
    }

    public static class Broken {

        @DistributedLock(
                name = "n",
                keys = {"'a:' + #a"})
        public void nameAndKeys(long a, long b) {}

        @DistributedLock(name = "n", mode = LockMode.SHARED, permits = 3)
        public void sharedSemaphore(long a, long b) {}

        @DistributedLock(name = "n", permits = 0)
        public void noPermits(long a, long b) {}

        @DistributedLock(keys = {"'a:' + #a", "'b:' + #b"})
        public void keys(long a, long b) {}
    }

    @Configuration(proxyBeanMethods = false)
    static class ServiceConfiguration {

        @Bean
        CatalogService catalogService() {
            return new CatalogService();
        }

        @Bean
        TransferService transferService() {
            return new TransferService();
        }

        @Bean
        ReportService reportService() {
            return new ReportService();
        }
    }

    public static class CatalogService {

        @DistributedLock(key = "'catalog:' + #id", mode = LockMode.SHARED, waitTimeout = "5s")
        public <T> T read(long id, Supplier<T> work) {
            return work.get();
        }

        @DistributedLock(key = "'catalog:' + #id", waitTimeout = "1s")
        public <T> T write(long id, Supplier<T> work) {
            return work.get();
        }
    }

    public static class TransferService {

        @DistributedLock(
                keys = {"'account:' + #from", "'account:' + #to"},
                waitTimeout = "700ms")
        public <T> T transfer(long from, long to, Supplier<T> work) {
            return work.get();
        }
    }

    public static class ReportService {

        @DistributedLock(name = "reports", permits = 2)
        public <T> T render(Supplier<T> work) {
            return work.get();
        }
    }
}
