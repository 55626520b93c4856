package dev.fencelock.autoconfigure.observation;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.fencelock.FencingContext;
import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.interceptor.LockCallObserver;
import dev.fencelock.observation.DefaultLockHoldObservationConvention;
import dev.fencelock.observation.LockHoldObservationConvention;
import dev.fencelock.observation.LockObservationContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/** Observations of {@code @DistributedLock} calls: the acquisition and the held section. */
class FenceLockObservationAutoConfigurationTests {

    private final TestObservationRegistry registry = TestObservationRegistry.create();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockObservationAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory")
            .withBean(StockService.class);

    @Test
    void runWithObservationRegistryShouldObserveTheAcquisitionAndTheHeldSection() {
        this.runner.withBean(ObservationRegistry.class, () -> this.registry).run((context) -> {
            long token = context.getBean(StockService.class).reserve("apple");

            assertThat(this.registry)
                    .hasNumberOfObservationsEqualTo(2)
                    .hasObservationWithNameEqualTo("fencelock.acquisition")
                    .that()
                    .hasContextualNameEqualTo("acquire 'stock:' + #sku")
                    .hasLowCardinalityKeyValue("lock", "'stock:' + #sku")
                    .hasLowCardinalityKeyValue("outcome", "acquired")
                    .hasHighCardinalityKeyValue("fencelock.resource", "stock:apple")
                    .hasHighCardinalityKeyValue("fencelock.token", Long.toString(token))
                    .doesNotHaveError()
                    .hasBeenStopped();
            assertThat(this.registry)
                    .hasObservationWithNameEqualTo("fencelock.hold")
                    .that()
                    .hasContextualNameEqualTo("locked 'stock:' + #sku")
                    .hasLowCardinalityKeyValue("lock", "'stock:' + #sku")
                    .doesNotHaveLowCardinalityKeyValueWithKey("fencelock.resource")
                    .hasHighCardinalityKeyValue("fencelock.resource", "stock:apple")
                    .hasHighCardinalityKeyValue("fencelock.token", Long.toString(token))
                    .hasBeenStopped();
        });
    }

    @Test
    void heldSectionShouldBeTheCurrentObservationWhileTheMethodRuns() {
        this.runner.withBean(ObservationRegistry.class, () -> this.registry).run((context) -> {
            StockService service = context.getBean(StockService.class);
            service.reserve("apple");
            assertThat(service.observedInside()).isEqualTo("fencelock.hold");
            assertThat(this.registry.getCurrentObservation()).isNull();
        });
    }

    @Test
    void busyLockShouldEndTheAcquisitionWithItsOutcomeAndError() {
        this.runner.withBean(ObservationRegistry.class, () -> this.registry).run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            try (LockLease held = client.acquire(LockRequest.of("stock:pear"))) {
                assertThatExceptionOfType(LockAcquisitionTimeoutException.class)
                        .isThrownBy(() -> context.getBean(StockService.class).reserveWithoutWaiting("pear"));
            }
            assertThat(this.registry)
                    .hasNumberOfObservationsEqualTo(1)
                    .hasObservationWithNameEqualTo("fencelock.acquisition")
                    .that()
                    .hasLowCardinalityKeyValue("outcome", "timeout")
                    .hasError()
                    .doesNotHaveHighCardinalityKeyValueWithKey("fencelock.token")
                    .hasBeenStopped();
        });
    }

    @Test
    void monoReturningMethodShouldBeObservedWithoutLeavingAnObservationInScope() {
        this.runner.withBean(ObservationRegistry.class, () -> this.registry).run((context) -> {
            StockService service = context.getBean(StockService.class);
            Sinks.One<Long> work = Sinks.one();
            Mono<Long> reserved = service.reserveReactively("fig", work.asMono());
            StepVerifier.create(reserved)
                    .then(() -> {
                        assertThat(this.registry)
                                .hasObservationWithNameEqualTo("fencelock.hold")
                                .that()
                                .isNotStopped();
                        assertThat(this.registry.getCurrentObservation()).isNull();
                        work.tryEmitValue(7L);
                    })
                    .expectNext(7L)
                    .expectComplete()
                    .verify(Duration.ofSeconds(10));
            assertThat(this.registry)
                    .hasObservationWithNameEqualTo("fencelock.acquisition")
                    .that()
                    .hasLowCardinalityKeyValue("outcome", "acquired")
                    .hasBeenStopped();
            assertThat(this.registry)
                    .hasObservationWithNameEqualTo("fencelock.hold")
                    .that()
                    .doesNotHaveError()
                    .hasBeenStopped();
            assertThat(this.registry.getCurrentObservation()).isNull();
        });
    }

    @Test
    void busyLockOfAFluxShouldEndTheAcquisitionWithItsOutcome() {
        this.runner.withBean(ObservationRegistry.class, () -> this.registry).run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            try (LockLease held = client.acquire(LockRequest.of("stock:kiwi"))) {
                StepVerifier.create(context.getBean(StockService.class).reserveAllWithoutWaiting("kiwi"))
                        .expectError(LockAcquisitionTimeoutException.class)
                        .verify(Duration.ofSeconds(10));
            }
            assertThat(this.registry)
                    .hasNumberOfObservationsEqualTo(1)
                    .hasObservationWithNameEqualTo("fencelock.acquisition")
                    .that()
                    .hasLowCardinalityKeyValue("outcome", "timeout")
                    .hasError()
                    .hasBeenStopped();
            assertThat(this.registry.getCurrentObservation()).isNull();
        });
    }

    @Test
    void stageReturningMethodShouldHoldUntilTheStageCompletes() {
        this.runner.withBean(ObservationRegistry.class, () -> this.registry).run((context) -> {
            StockService service = context.getBean(StockService.class);
            CompletableFuture<Void> work = new CompletableFuture<>();
            CompletableFuture<Void> result = service.reserveLater("plum", work);

            assertThat(this.registry)
                    .hasObservationWithNameEqualTo("fencelock.hold")
                    .that()
                    .isNotStopped();
            assertThat(this.registry.getCurrentObservation()).isNull();

            work.complete(null);
            result.get(10, TimeUnit.SECONDS);
            assertThat(this.registry)
                    .hasObservationWithNameEqualTo("fencelock.hold")
                    .that()
                    .hasBeenStopped();
        });
    }

    @Test
    void runWithHoldConventionBeanShouldUseIt() {
        this.runner
                .withBean(ObservationRegistry.class, () -> this.registry)
                .withBean(LockHoldObservationConvention.class, RenamedHold::new)
                .run((context) -> {
                    context.getBean(StockService.class).reserve("apple");
                    assertThat(this.registry)
                            .hasObservationWithNameEqualTo("inventory.locked")
                            .that()
                            .hasLowCardinalityKeyValue("lock", "'stock:' + #sku");
                });
    }

    @Test
    void runWithoutObservationRegistryShouldObserveNothing() {
        this.runner.run((context) -> {
            assertThat(context).doesNotHaveBean(LockCallObserver.class);
            assertThat(context.getBean(StockService.class).reserve("apple")).isPositive();
        });
    }

    @Test
    void runWhenDisabledShouldObserveNothing() {
        this.runner
                .withBean(ObservationRegistry.class, () -> this.registry)
                .withPropertyValues("fencelock.observation.enabled=false")
                .run((context) -> {
                    assertThat(context).doesNotHaveBean(LockCallObserver.class);
                    context.getBean(StockService.class).reserve("apple");
                    assertThat(this.registry).doesNotHaveAnyObservation();
                });
    }

    static class RenamedHold extends DefaultLockHoldObservationConvention {

        @Override
        public String getName() {
            return "inventory.locked";
        }

        @Override
        public String getContextualName(LockObservationContext context) {
            return "inventory " + context.getLockName();
        }
    }

    public static class StockService {

        private volatile @Nullable String observedInside;

        private final ObservationRegistry registry;

        public StockService(ObjectProvider<ObservationRegistry> registry) {
            this.registry = registry.getIfAvailable(() -> ObservationRegistry.NOOP);
        }

        @DistributedLock(key = "'stock:' + #sku")
        public long reserve(String sku) {
            Observation current = this.registry.getCurrentObservation();
            this.observedInside = (current != null) ? current.getContext().getName() : null;
            return FencingContext.current().orElseThrow().token();
        }

        /** Read through this method: the bean is a class proxy, whose own fields stay unset. */
        public @Nullable String observedInside() {
            return this.observedInside;
        }

        @DistributedLock(key = "'stock:' + #sku", waitTimeout = "0s")
        public void reserveWithoutWaiting(String sku) {}

        @DistributedLock(key = "'stock:' + #sku")
        public Mono<Long> reserveReactively(String sku, Mono<Long> work) {
            return work;
        }

        @DistributedLock(key = "'stock:' + #sku", waitTimeout = "0s")
        public Flux<Long> reserveAllWithoutWaiting(String sku) {
            return Flux.just(1L, 2L);
        }

        @DistributedLock(key = "'stock:' + #sku")
        public CompletableFuture<Void> reserveLater(String sku, CompletableFuture<Void> work) {
            return work.thenRunAsync(() -> {}, CompletableFuture.delayedExecutor(1, TimeUnit.MILLISECONDS));
        }
    }
}
