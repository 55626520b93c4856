package dev.fencelock.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockClient;
import dev.fencelock.LockEventListener;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.LockRequest;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.annotation.LockNotAcquiredPolicy;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.memory.InMemoryLockStore;
import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockBackend;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class DistributedLockInterceptorTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class, FenceLockEtcdAutoConfiguration.class, FenceLockAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory")
            .withUserConfiguration(ServiceConfiguration.class);

    @Test
    void callShouldRunUnderTheLockAndReleaseItAfterwards() {
        run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            LockedService service = context.getBean(LockedService.class);
            List<LockClient.HeldLock> heldInside = service.ship(42L, () -> client.heldLocks());
            assertThat(heldInside).extracting(LockClient.HeldLock::resource).containsExactly("order:42");
            assertThat(client.heldCount()).isZero();
        });
    }

    @Test
    void fencingContextShouldShowTheTokenInsideTheCallOnly() {
        run((context) -> {
            LockedService service = context.getBean(LockedService.class);
            List<Boolean> validInside = new ArrayList<>();
            List<Fence> fences = service.ship(7L, () -> {
                validInside.add(FencingContext.current().orElseThrow().isValid());
                return FencingContext.all();
            });
            assertThat(validInside).containsExactly(true);
            assertThat(fences).singleElement().satisfies((fence) -> {
                assertThat(fence.resource()).isEqualTo("order:7");
                assertThat(fence.token()).isPositive();
                assertThat(fence.isValid()).as("lease released after the call").isFalse();
            });
            assertThat(FencingContext.all()).isEmpty();
        });
    }

    @Test
    void nestedCallsOnDifferentKeysShouldStackTheirFences() {
        run((context) -> {
            LockedService service = context.getBean(LockedService.class);
            List<Fence> fences = service.ship(1L, () -> service.ship(2L, FencingContext::all));
            assertThat(fences).extracting(Fence::resource).containsExactly("order:1", "order:2");
            assertThat(fences.get(1).token()).isGreaterThan(fences.get(0).token());
            assertThat(FencingContext.all()).isEmpty();
        });
    }

    @Test
    void nestedCallOnTheSameKeyShouldReenterWithTheSameToken() {
        run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            LockedService service = context.getBean(LockedService.class);
            List<Object> seen = new ArrayList<>();
            service.ship(5L, () -> {
                long outer = FencingContext.current().orElseThrow().token();
                return service.ship(5L, () -> {
                    seen.add(outer);
                    seen.add(FencingContext.current().orElseThrow().token());
                    seen.add(client.heldLocks().get(0).holds());
                    return null;
                });
            });
            assertThat(seen.get(0)).isEqualTo(seen.get(1));
            assertThat(seen.get(2)).isEqualTo(2);
            assertThat(client.heldCount()).isZero();
            assertThat(FencingContext.all()).isEmpty();
        });
    }

    @Test
    void callThatThrowsShouldStillClearTheFenceAndRelease() {
        run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            LockedService service = context.getBean(LockedService.class);
            assertThatExceptionOfType(IllegalStateException.class)
                    .isThrownBy(() -> service.ship(9L, () -> {
                        throw new IllegalStateException("boom");
                    }));
            assertThat(FencingContext.all()).isEmpty();
            assertThat(client.heldCount()).isZero();
            assertThat(client.tryAcquire("order:9")).hasValueSatisfying(LockLease::release);
        });
    }

    @Test
    void eventsShouldNameTheLockByItsKeyTemplateNotTheResolvedKey() {
        List<String> lockNames = new java.util.concurrent.CopyOnWriteArrayList<>();
        LockEventListener listener = new LockEventListener() {
            @Override
            public void acquired(LockLease lease, String lockName, Duration waited, boolean reentered) {
                lockNames.add(lockName + " -> " + lease.resource());
            }
        };
        this.runner.withBean(LockEventListener.class, () -> listener).run((context) -> {
            context.getBean(LockedService.class).ship(77L, () -> null);
            assertThat(context.getBean(LockedService.class).nightlyReport()).isEqualTo("nightly-report");
            assertThat(lockNames)
                    .containsExactly("'order:' + #orderId -> order:77", "nightly-report -> nightly-report");
        });
    }

    @Test
    void fixedNameShouldBeUsedAsTheResource() {
        run((context) -> {
            LockedService service = context.getBean(LockedService.class);
            assertThat(service.nightlyReport()).isEqualTo("nightly-report");
        });
    }

    @Test
    void busyLockWithThrowPolicyShouldFailWithoutCallingTheMethod() {
        run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            LockedService service = context.getBean(LockedService.class);
            LockLease held = client.acquire(LockRequest.of("order:3"));
            try {
                assertThatExceptionOfType(LockAcquisitionTimeoutException.class).isThrownBy(() -> service.shipNow(3L));
            } finally {
                held.release();
            }
            assertThat(service.calls()).isZero();
        });
    }

    @Test
    void busyLockWithSkipPolicyShouldReturnEmptyValuesWithoutCallingTheMethod() {
        run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            SkippingService service = context.getBean(SkippingService.class);
            LockLease held = client.acquire(LockRequest.of("busy"));
            try {
                assertThat(service.flag()).isFalse();
                assertThat(service.wrappedFlag()).isFalse();
                assertThat(service.count()).isZero();
                assertThat(service.optional()).isEmpty();
                assertThat(service.text()).isNull();
                assertThat(service.future()).isCompletedWithValue(null);
                service.nothing();
            } finally {
                held.release();
            }
            assertThat(service.calls()).isZero();
            assertThat(service.flag()).isTrue();
            assertThat(service.calls()).isOne();
        });
    }

    @Test
    void waitTimeoutShouldResolvePlaceholders() {
        this.runner.withPropertyValues("app.report.wait=0s").run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            SkippingService service = context.getBean(SkippingService.class);
            LockLease held = client.acquire(LockRequest.of("report"));
            try {
                // The placeholder's 0 s tries once; the 30 s default would wait and say it stayed busy.
                assertThatExceptionOfType(LockAcquisitionTimeoutException.class)
                        .isThrownBy(service::report)
                        .withMessageContaining("is held by someone else");
            } finally {
                held.release();
            }
        });
    }

    @Test
    void lockLostDuringTheCallShouldInterruptItAndFailAfterItReturns() {
        InMemoryLockStore store = new InMemoryLockStore();
        InMemoryLockBackend backend = InMemoryLockBackend.sharing(store);
        this.runner
                .withBean(InMemoryLockBackend.class, () -> backend)
                .withPropertyValues("fencelock.lease-ttl=1s")
                .run((context) -> {
                    LockedService service = context.getBean(LockedService.class);
                    AtomicBoolean interrupted = new AtomicBoolean();
                    backend.pauseRenewals();
                    assertThatExceptionOfType(LockLostException.class)
                            .isThrownBy(() -> service.ship(11L, () -> {
                                try {
                                    new CountDownLatch(1).await(10, TimeUnit.SECONDS);
                                } catch (InterruptedException ex) {
                                    interrupted.set(true);
                                }
                                return "finished";
                            }))
                            .withMessageContaining("order:11")
                            .withMessageContaining("'order:' + #orderId")
                            .withMessageContaining("LockedService.ship(long, Supplier)");
                    assertThat(interrupted).isTrue();
                    assertThat(Thread.currentThread().isInterrupted()).isFalse();
                    assertThat(FencingContext.all()).isEmpty();
                });
        store.close();
    }

    @Test
    void lockLostWithoutInterruptShouldStillFailAfterTheMethodReturns() {
        InMemoryLockStore store = new InMemoryLockStore();
        InMemoryLockBackend backend = InMemoryLockBackend.sharing(store);
        this.runner
                .withBean(InMemoryLockBackend.class, () -> backend)
                .withPropertyValues("fencelock.lease-ttl=1s", "fencelock.aspect.interrupt-on-lost=false")
                .run((context) -> {
                    LockedService service = context.getBean(LockedService.class);
                    backend.pauseRenewals();
                    assertThatExceptionOfType(LockLostException.class)
                            .isThrownBy(() -> service.ship(12L, () -> {
                                Fence fence = FencingContext.current().orElseThrow();
                                await().atMost(Duration.ofSeconds(10)).until(() -> !fence.isValid());
                                return Thread.currentThread().isInterrupted();
                            }));
                });
        store.close();
    }

    @Test
    void futureReturningMethodShouldHoldTheLockUntilTheFutureCompletes() {
        run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            LockedService service = context.getBean(LockedService.class);
            CompletableFuture<String> pending = new CompletableFuture<>();
            CompletableFuture<String> result = service.shipLater(21L, pending);
            assertThat(FencingContext.all()).isEmpty();
            assertThat(result).isNotDone();
            assertThat(client.heldLocks())
                    .extracting(LockClient.HeldLock::resource)
                    .containsExactly("order:21");
            pending.complete("shipped");
            assertThat(result.join()).isEqualTo("shipped");
            assertThat(client.heldCount()).isZero();
        });
    }

    @Test
    void futureReturningMethodShouldReleaseWhenTheFutureFails() {
        run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            LockedService service = context.getBean(LockedService.class);
            CompletableFuture<String> pending = new CompletableFuture<>();
            CompletableFuture<String> result = service.shipLater(22L, pending);
            pending.completeExceptionally(new IllegalStateException("failed"));
            assertThat(result).failsWithin(Duration.ofSeconds(10));
            assertThat(client.heldCount()).isZero();
        });
    }

    @Test
    void futureReturningMethodWhoseLockIsLostShouldFailTheFuture() {
        InMemoryLockStore store = new InMemoryLockStore();
        InMemoryLockBackend backend = InMemoryLockBackend.sharing(store);
        this.runner
                .withBean(InMemoryLockBackend.class, () -> backend)
                .withPropertyValues("fencelock.lease-ttl=1s")
                .run((context) -> {
                    LockedService service = context.getBean(LockedService.class);
                    CompletableFuture<String> pending = new CompletableFuture<>();
                    backend.pauseRenewals();
                    CompletableFuture<String> result = service.shipLater(23L, pending);
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> context.getBean(LockClient.class).heldCount() == 0);
                    pending.complete("too late");
                    assertThat(result)
                            .failsWithin(Duration.ofSeconds(10))
                            .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                            .withCauseInstanceOf(LockLostException.class);
                });
        store.close();
    }

    @Test
    void releaseInBackgroundShouldLetTheStoreDeleteTheLockWithoutWaiting() {
        RecordingBackend backend = new RecordingBackend();
        this.runner
                .withBean(LockBackend.class, () -> backend)
                .withPropertyValues("fencelock.aspect.release-in-background=true")
                .run((context) -> {
                    LockClient client = context.getBean(LockClient.class);
                    assertThat(context.getBean(LockedService.class).ship(5L, () -> "shipped"))
                            .isEqualTo("shipped");
                    assertThat(client.heldCount()).isZero();
                    assertThat(backend.deferred).hasValue(1);
                    assertThat(backend.immediate).hasValue(0);
                });
    }

    @Test
    void releaseShouldWaitForTheStoreByDefault() {
        RecordingBackend backend = new RecordingBackend();
        this.runner.withBean(LockBackend.class, () -> backend).run((context) -> {
            context.getBean(LockedService.class).ship(6L, () -> "shipped");
            assertThat(backend.immediate).hasValue(1);
            assertThat(backend.deferred).hasValue(0);
        });
    }

    @ParameterizedTest(name = "spring.aop.proxy-target-class={0}")
    @ValueSource(booleans = {true, false})
    void annotationOnAnInterfaceMethodShouldLockTheImplementation(boolean proxyTargetClass) {
        this.runner
                .withPropertyValues("spring.aop.proxy-target-class=" + proxyTargetClass)
                .withBean(ParcelShipping.class)
                .run((context) ->
                        assertThat(context.getBean(Shipping.class).ship(8L)).isEqualTo("parcel:8"));
    }

    @Test
    void composedAnnotationShouldLockTheMethod() {
        this.runner
                .withBean(NightlyJob.class)
                .run((context) ->
                        assertThat(context.getBean(NightlyJob.class).run()).isEqualTo("nightly-job"));
    }

    /** The in-memory store, counting which kind of release the interceptor asked for. */
    static final class RecordingBackend implements LockBackend {

        private final InMemoryLockBackend store = new InMemoryLockBackend();

        final AtomicInteger immediate = new AtomicInteger();

        final AtomicInteger deferred = new AtomicInteger();

        @Override
        public CompletableFuture<BackendLock> acquire(AcquireCommand command) {
            return this.store.acquire(command);
        }

        @Override
        public CompletableFuture<Long> renew(BackendLock lock) {
            return this.store.renew(lock);
        }

        @Override
        public CompletableFuture<Boolean> release(BackendLock lock) {
            this.immediate.incrementAndGet();
            return this.store.release(lock);
        }

        @Override
        public CompletableFuture<Boolean> releaseDeferred(BackendLock lock) {
            this.deferred.incrementAndGet();
            return this.store.release(lock);
        }

        @Override
        public String describe() {
            return "recording " + this.store.describe();
        }

        @Override
        public void close() {
            this.store.close();
        }
    }

    private void run(ContextConsumer<AssertableApplicationContext> test) {
        this.runner.run(test);
    }

    @Configuration(proxyBeanMethods = false)
    static class ServiceConfiguration {

        @Bean
        LockedService lockedService() {
            return new LockedService();
        }

        @Bean
        SkippingService skippingService() {
            return new SkippingService();
        }
    }

    public static class LockedService {

        volatile int calls;

        public int calls() {
            return this.calls;
        }

        @DistributedLock(key = "'order:' + #orderId")
        public <T> T ship(long orderId, java.util.function.Supplier<T> work) {
            return work.get();
        }

        @DistributedLock(key = "'order:' + #orderId", waitTimeout = "0s")
        public void shipNow(long orderId) {
            this.calls++;
        }

        @DistributedLock("nightly-report")
        public String nightlyReport() {
            return FencingContext.current().orElseThrow().resource();
        }

        @DistributedLock(key = "'order:' + #orderId")
        public CompletableFuture<String> shipLater(long orderId, CompletableFuture<String> work) {
            return work;
        }
    }

    public interface Shipping {

        @DistributedLock(key = "'parcel:' + #parcelId")
        String ship(long parcelId);
    }

    public static class ParcelShipping implements Shipping {

        @Override
        public String ship(long parcelId) {
            return FencingContext.current().map(Fence::resource).orElse("unlocked");
        }
    }

    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @DistributedLock(name = "nightly-job", waitTimeout = "0s")
    @interface NightlyLock {}

    public static class NightlyJob {

        @NightlyLock
        public String run() {
            return FencingContext.current().map(Fence::resource).orElse("unlocked");
        }
    }

    public static class SkippingService {

        volatile int calls;

        public int calls() {
            return this.calls;
        }

        @DistributedLock(name = "busy", waitTimeout = "0s", onNotAcquired = LockNotAcquiredPolicy.SKIP)
        public boolean flag() {
            this.calls++;
            return true;
        }

        @DistributedLock(name = "busy", waitTimeout = "0s", onNotAcquired = LockNotAcquiredPolicy.SKIP)
        public Boolean wrappedFlag() {
            this.calls++;
            return true;
        }

        @DistributedLock(name = "busy", waitTimeout = "0s", onNotAcquired = LockNotAcquiredPolicy.SKIP)
        public int count() {
            this.calls++;
            return 1;
        }

        @DistributedLock(name = "busy", waitTimeout = "PT0S", onNotAcquired = LockNotAcquiredPolicy.SKIP)
        public Optional<String> optional() {
            this.calls++;
            return Optional.of("ran");
        }

        @DistributedLock(name = "busy", waitTimeout = "0s", onNotAcquired = LockNotAcquiredPolicy.SKIP)
        public String text() {
            this.calls++;
            return "ran";
        }

        @DistributedLock(name = "busy", waitTimeout = "0s", onNotAcquired = LockNotAcquiredPolicy.SKIP)
        public CompletableFuture<String> future() {
            this.calls++;
            return CompletableFuture.completedFuture("ran");
        }

        @DistributedLock(name = "busy", waitTimeout = "0s", onNotAcquired = LockNotAcquiredPolicy.SKIP)
        public void nothing() {
            this.calls++;
        }

        @DistributedLock(name = "report", waitTimeout = "${app.report.wait:30s}")
        public void report() {
            this.calls++;
        }
    }
}
