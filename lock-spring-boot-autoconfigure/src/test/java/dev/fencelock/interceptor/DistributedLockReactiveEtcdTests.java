package dev.fencelock.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.annotation.LockNotAcquiredPolicy;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.autoconfigure.metrics.FenceLockMetricsAutoConfiguration;
import dev.fencelock.context.FencingContextAccessor;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * {@code @DistributedLock} on methods that return a {@code Mono} or a {@code Flux}, on a real etcd
 * member.
 *
 * <p>Where a test shows that a lock was released, the next call waits up to 10 s for it while the
 * lease lives 30 s ({@code fencelock.lease-ttl}): only a release, never the lease's expiry, can let
 * that call in, so a slow machine makes it wait longer, not pass wrongly.
 */
class DistributedLockReactiveEtcdTests {

    private static final Duration VERIFY = Duration.ofSeconds(30);

    @RegisterExtension
    static EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    /** Another instance on the same etcd, as an operator's force-release through the endpoint. */
    private static LockClient operator;

    @BeforeAll
    static void startOperator() {
        operator = LockClient.builder(
                        EtcdLockBackend.builder().endpoints(etcd.endpoints()).build())
                .build();
    }

    @AfterAll
    static void stopOperator() {
        if (operator != null) {
            operator.close();
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class,
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockMetricsAutoConfiguration.class))
            .withPropertyValues(
                    "fencelock.etcd.endpoints=" + String.join(",", etcd.endpoints()), "fencelock.lease-ttl=30s")
            .withBean(SimpleMeterRegistry.class)
            .withBean(ReactiveService.class)
            .withBean(OuterService.class);

    @BeforeEach
    void resetCounters() {
        ReactiveService.inside.set(0);
        ReactiveService.maxInside.set(0);
        ReactiveService.tokens.clear();
        ReactiveService.calls.set(0);
    }

    @Test
    void concurrentSubscriptionsShouldRunOneAtATimeWithGrowingTokens() {
        this.runner.run((context) -> {
            ReactiveService service = context.getBean(ReactiveService.class);
            int calls = 16;
            List<Long> returned = Flux.range(0, calls)
                    .flatMap(i -> service.serialized("counter"), calls)
                    .collectList()
                    .block(VERIFY);

            assertThat(ReactiveService.maxInside).hasValue(1);
            assertThat(ReactiveService.tokens).hasSize(calls).isSorted().doesNotHaveDuplicates();
            assertThat(returned).containsExactlyInAnyOrderElementsOf(ReactiveService.tokens);
            assertThat(context.getBean(LockClient.class).heldCount()).isZero();
            assertThat(context.getBean(MeterRegistry.class)
                            .get("fencelock.acquire")
                            .tag("lock", "'reactive:' + #name")
                            .tag("outcome", "acquired")
                            .timer()
                            .count())
                    .isEqualTo(calls);
        });
    }

    @Test
    void eachSubscriptionShouldTakeTheLockAgain() {
        this.runner.run((context) -> {
            ReactiveService service = context.getBean(ReactiveService.class);
            Mono<Long> once = service.serialized("again");
            long first = once.block(VERIFY);
            long second = once.block(VERIFY);
            assertThat(second).isGreaterThan(first);
            assertThat(ReactiveService.calls).hasValue(2);
        });
    }

    @Test
    void cancellingShouldReleaseTheLock() {
        this.runner.run((context) -> {
            ReactiveService service = context.getBean(ReactiveService.class);
            CountDownLatch inside = new CountDownLatch(1);
            AtomicBoolean cancelled = new AtomicBoolean();
            Disposable subscription = service.hang("cancel", inside, cancelled).subscribe();
            assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();

            subscription.dispose();

            // The method's publisher may still be handing its subscription down when the subscriber
            // goes away; Reactor then cancels it on that thread, just after dispose() returns.
            org.awaitility.Awaitility.await().atMost(VERIFY).untilTrue(cancelled);
            // Within 10 s while the lease lives 30 s: only the release can let this call in.
            StepVerifier.create(service.waitingUpTo10s("cancel"))
                    .expectNextCount(1)
                    .expectComplete()
                    .verify(VERIFY);
        });
    }

    @Test
    void cancellingWhileWaitingShouldLeaveNoLockBehind() {
        this.runner.run((context) -> {
            ReactiveService service = context.getBean(ReactiveService.class);
            LockClient client = context.getBean(LockClient.class);
            LockLease held = client.acquire(LockRequest.of("reactive:queued"));
            Disposable waiting = service.waitingUpTo10s("queued").subscribe();
            waiting.dispose();
            held.release();

            // The abandoned waiter must not have left a key that holds the lock.
            StepVerifier.create(service.waitingUpTo10s("queued"))
                    .expectNextCount(1)
                    .expectComplete()
                    .verify(VERIFY);
            assertThat(ReactiveService.calls).hasValue(1);
        });
    }

    @Test
    void failingPublisherShouldReleaseTheLockAndKeepItsError() {
        this.runner.run((context) -> {
            ReactiveService service = context.getBean(ReactiveService.class);
            StepVerifier.create(service.failing("error"))
                    .expectErrorSatisfies(failure -> assertThat(failure)
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessage("out of stock"))
                    .verify(VERIFY);

            StepVerifier.create(service.waitingUpTo10s("error"))
                    .expectNextCount(1)
                    .expectComplete()
                    .verify(VERIFY);
        });
    }

    @Test
    void busyLockShouldFailAfterTheWaitTimeoutWithoutCallingTheMethod() {
        this.runner.run((context) -> {
            ReactiveService service = context.getBean(ReactiveService.class);
            LockClient client = context.getBean(LockClient.class);
            try (LockLease held = client.acquire(LockRequest.of("reactive:busy"))) {
                StepVerifier.create(service.throwing("busy"))
                        .expectError(LockAcquisitionTimeoutException.class)
                        .verify(VERIFY);
                StepVerifier.create(service.skippingMono("busy"))
                        .expectComplete()
                        .verify(VERIFY);
                StepVerifier.create(service.skippingFlux("busy"))
                        .expectComplete()
                        .verify(VERIFY);
            }
            assertThat(ReactiveService.calls).hasValue(0);

            StepVerifier.create(service.skippingMono("busy"))
                    .expectNext("ran")
                    .expectComplete()
                    .verify(VERIFY);
            StepVerifier.create(service.skippingFlux("busy"))
                    .expectNext("ran", "ran")
                    .expectComplete()
                    .verify(VERIFY);
        });
    }

    @Test
    void fluxShouldHoldTheLockUntilItCompletes() {
        this.runner.run((context) -> {
            ReactiveService service = context.getBean(ReactiveService.class);
            Sinks.Many<Integer> items = Sinks.many().unicast().onBackpressureBuffer();
            StepVerifier.create(service.stream("stream", items.asFlux()))
                    .then(() -> items.tryEmitNext(1))
                    .expectNext(1)
                    .then(() -> {
                        // The Flux has emitted but not completed: the lock is still held.
                        assertThatExceptionOfType(LockAcquisitionTimeoutException.class)
                                .isThrownBy(() -> service.throwing("stream").block(VERIFY));
                        items.tryEmitNext(2);
                    })
                    .expectNext(2)
                    .then(items::tryEmitComplete)
                    .expectComplete()
                    .verify(VERIFY);

            StepVerifier.create(service.waitingUpTo10s("stream"))
                    .expectNextCount(1)
                    .expectComplete()
                    .verify(VERIFY);
        });
    }

    @Test
    void lostLockShouldCancelThePublisherAndFailWithLockLostException() {
        this.runner.run((context) -> {
            ReactiveService service = context.getBean(ReactiveService.class);
            CountDownLatch inside = new CountDownLatch(1);
            AtomicBoolean cancelled = new AtomicBoolean();
            StepVerifier.create(service.hang("lost", inside, cancelled))
                    .expectSubscription()
                    .then(() -> {
                        await(inside);
                        operator.administration().orElseThrow().forceRelease(ResourceName.of("reactive:lost", 255));
                    })
                    .expectErrorSatisfies(failure -> assertThat(failure)
                            .isInstanceOf(LockLostException.class)
                            .hasMessageContaining("'reactive:lost'")
                            .hasMessageContaining("ReactiveService.hang(")
                            .hasMessageContaining("its publisher was cancelled"))
                    .verify(VERIFY);
            assertThat(cancelled).isTrue();
            assertThat(context.getBean(LockClient.class).heldCount()).isZero();
        });
    }

    @Test
    void fenceShouldBeInTheReactorContext() {
        this.runner.run((context) -> {
            ReactiveService service = context.getBean(ReactiveService.class);
            List<Fence> fences = service.fencesFromContext("ctx").block(VERIFY);

            assertThat(fences).hasSize(1);
            assertThat(fences.get(0).resource()).isEqualTo("reactive:ctx");
            assertThat(fences.get(0).token()).isPositive();
            assertThat(fences.get(0).lease()).isNotNull();
            assertThat(FencingContextAccessor.KEY).isEqualTo(FencingContext.CONTEXT_KEY);
        });
    }

    @Test
    void fenceShouldBeCurrentOnOtherThreadsWithAutomaticContextPropagation() {
        this.runner.run((context) -> {
            ReactiveService service = context.getBean(ReactiveService.class);
            assertThat(service.fenceOnAnotherThread("propagated").block(VERIFY))
                    .as("without automatic context propagation")
                    .isEqualTo("none");
            Hooks.enableAutomaticContextPropagation();
            try {
                String seen = service.fenceOnAnotherThread("propagated").block(VERIFY);
                assertThat(seen).startsWith("reactive:propagated@");
            } finally {
                Hooks.disableAutomaticContextPropagation();
            }
        });
    }

    @Test
    void severalKeysShouldAllBeHeldAndCarried() {
        this.runner.run((context) -> {
            ReactiveService service = context.getBean(ReactiveService.class);
            List<Fence> fences = service.transfer("b", "a").block(VERIFY);
            assertThat(fences).extracting(Fence::resource).containsExactly("account:a", "account:b");
        });
    }

    @Test
    void nestedCallOfTheSameKeyShouldReenterWithTheSameToken() {
        this.runner.run((context) -> {
            OuterService outer = context.getBean(OuterService.class);
            List<Long> tokens = outer.outerAndInner("nested").block(VERIFY);
            assertThat(tokens).hasSize(2);
            assertThat(tokens.get(1)).isEqualTo(tokens.get(0));
        });
    }

    @Test
    void monoBlockedInsideABlockingCallOfTheSameKeyShouldReenter() {
        this.runner.run((context) -> {
            OuterService outer = context.getBean(OuterService.class);
            List<Long> tokens = outer.blockingOuterAndInner("blocked");
            assertThat(tokens).hasSize(2);
            assertThat(tokens.get(1)).isEqualTo(tokens.get(0));
        });
    }

    @Test
    void blockingAndReactiveCallersOfOneKeyShouldExcludeEachOther() {
        this.runner.run((context) -> {
            ReactiveService service = context.getBean(ReactiveService.class);
            // A reactive holder keeps the blocking caller out.
            CountDownLatch inside = new CountDownLatch(1);
            AtomicBoolean cancelled = new AtomicBoolean();
            Disposable reactive = service.hang("mixed", inside, cancelled).subscribe();
            await(inside);
            assertThatExceptionOfType(LockAcquisitionTimeoutException.class)
                    .isThrownBy(() -> service.blocking("mixed", () -> {}));
            reactive.dispose();

            // A blocking holder keeps the reactive caller out.
            CountDownLatch blockingInside = new CountDownLatch(1);
            CountDownLatch leave = new CountDownLatch(1);
            CompletableFuture<Void> blocking = CompletableFuture.runAsync(() -> service.blockingUpTo10s("mixed", () -> {
                blockingInside.countDown();
                await(leave);
            }));
            await(blockingInside);
            StepVerifier.create(service.throwing("mixed"))
                    .expectError(LockAcquisitionTimeoutException.class)
                    .verify(VERIFY);
            leave.countDown();
            blocking.get(30, TimeUnit.SECONDS);
        });
    }

    @Test
    void documentedServiceShouldWriteWithItsTokenAndHoldTheAuditLockToTheEnd() {
        List<Long> written = new CopyOnWriteArrayList<>();
        Sinks.Many<String> skus = Sinks.many().unicast().onBackpressureBuffer();
        ReactiveReservationSnippet.Stock stock = new ReactiveReservationSnippet.Stock() {
            @Override
            public Mono<Long> reserve(String sku, long token) {
                written.add(token);
                return Mono.just(token);
            }

            @Override
            public Flux<String> skus() {
                return skus.asFlux();
            }
        };
        this.runner
                .withBean(ReactiveReservationSnippet.class, () -> new ReactiveReservationSnippet(stock))
                .run((context) -> {
                    ReactiveReservationSnippet service = context.getBean(ReactiveReservationSnippet.class);
                    long first = service.reserve("apple").block(VERIFY);
                    long second = service.reserve("apple").block(VERIFY);
                    assertThat(written).containsExactly(first, second);
                    assertThat(second).isGreaterThan(first);

                    StepVerifier.create(service.audit())
                            .then(() -> skus.tryEmitNext("apple"))
                            .expectNext("apple")
                            .then(() -> assertThat(
                                            context.getBean(LockClient.class).tryAcquire("stock-audit"))
                                    .isEmpty())
                            .then(skus::tryEmitComplete)
                            .expectComplete()
                            .verify(VERIFY);
                });
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    public static class ReactiveService {

        // Static: the test sees the bean through its proxy, whose own fields are not the bean's.
        static final AtomicInteger inside = new AtomicInteger();

        static final AtomicInteger maxInside = new AtomicInteger();

        static final List<Long> tokens = new CopyOnWriteArrayList<>();

        static final AtomicInteger calls = new AtomicInteger();

        @DistributedLock(key = "'reactive:' + #name", waitTimeout = "30s")
        public Mono<Long> serialized(String name) {
            calls.incrementAndGet();
            return Mono.deferContextual(context -> {
                        maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                        List<Fence> fences = context.get(FencingContext.CONTEXT_KEY);
                        long token = fences.get(fences.size() - 1).token();
                        tokens.add(token);
                        return Mono.just(token);
                    })
                    // Leaves the thread, so that an overlapping holder would have the chance to run.
                    .delayElement(Duration.ofMillis(2))
                    .map(token -> {
                        inside.decrementAndGet();
                        return token;
                    });
        }

        @DistributedLock(key = "'reactive:' + #name", waitTimeout = "10s")
        public Mono<Long> waitingUpTo10s(String name) {
            calls.incrementAndGet();
            return Mono.fromCallable(
                    () -> FencingContext.current().orElseThrow().token());
        }

        @DistributedLock(key = "'reactive:' + #name")
        public Mono<String> hang(String name, CountDownLatch inside, AtomicBoolean cancelled) {
            return Mono.<String>never().doOnSubscribe(s -> inside.countDown()).doOnCancel(() -> cancelled.set(true));
        }

        @DistributedLock(key = "'reactive:' + #name")
        public Mono<String> failing(String name) {
            return Mono.error(new IllegalStateException("out of stock"));
        }

        @DistributedLock(key = "'reactive:' + #name", waitTimeout = "0s")
        public Mono<String> throwing(String name) {
            calls.incrementAndGet();
            return Mono.just("ran");
        }

        @DistributedLock(key = "'reactive:' + #name", waitTimeout = "0s", onNotAcquired = LockNotAcquiredPolicy.SKIP)
        public Mono<String> skippingMono(String name) {
            calls.incrementAndGet();
            return Mono.just("ran");
        }

        @DistributedLock(key = "'reactive:' + #name", waitTimeout = "0s", onNotAcquired = LockNotAcquiredPolicy.SKIP)
        public Flux<String> skippingFlux(String name) {
            calls.incrementAndGet();
            return Flux.just("ran", "ran");
        }

        @DistributedLock(key = "'reactive:' + #name")
        public Flux<Integer> stream(String name, Flux<Integer> items) {
            return items;
        }

        @DistributedLock(key = "'reactive:' + #name")
        public Mono<List<Fence>> fencesFromContext(String name) {
            return Mono.deferContextual(context -> Mono.just(context.get(FencingContextAccessor.KEY)));
        }

        /** What {@link FencingContext#current()} says in an operator on a thread of another scheduler. */
        @DistributedLock(key = "'reactive:' + #name")
        public Mono<String> fenceOnAnotherThread(String name) {
            return Mono.just(name)
                    .publishOn(Schedulers.parallel())
                    .map(ignored -> FencingContext.current()
                            .map(fence -> fence.resource() + "@" + fence.token())
                            .orElse("none"));
        }

        @DistributedLock(keys = {"'account:' + #from", "'account:' + #to"})
        public Mono<List<Fence>> transfer(String from, String to) {
            return Mono.deferContextual(context -> Mono.just(context.get(FencingContext.CONTEXT_KEY)));
        }

        @DistributedLock(key = "'reactive:' + #name", waitTimeout = "0s")
        public void blocking(String name, Runnable work) {
            work.run();
        }

        @DistributedLock(key = "'reactive:' + #name", waitTimeout = "10s")
        public void blockingUpTo10s(String name, Runnable work) {
            work.run();
        }

        @DistributedLock(key = "'reactive:' + #name", waitTimeout = "0s")
        public Mono<Long> token(String name) {
            return Mono.deferContextual(context -> {
                List<Fence> fences = context.get(FencingContext.CONTEXT_KEY);
                return Mono.just(fences.get(fences.size() - 1).token());
            });
        }
    }

    public static class OuterService {

        private final ReactiveService inner;

        public OuterService(ReactiveService inner) {
            this.inner = inner;
        }

        /** The token of this call's lock, then the token the nested call of the same key got. */
        @DistributedLock(key = "'reactive:' + #name")
        public Mono<List<Long>> outerAndInner(String name) {
            return Mono.deferContextual(context -> {
                List<Fence> fences = context.get(FencingContext.CONTEXT_KEY);
                long outer = fences.get(fences.size() - 1).token();
                return this.inner.token(name).map(innerToken -> List.of(outer, innerToken));
            });
        }

        /** The same from a blocking call, which blocks on the nested call's Mono. */
        @DistributedLock(key = "'reactive:' + #name")
        public List<Long> blockingOuterAndInner(String name) {
            long outer = FencingContext.current().orElseThrow().token();
            return List.of(outer, this.inner.token(name).block(VERIFY));
        }
    }
}
