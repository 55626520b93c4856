package dev.fencelock.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.FencingContext;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import java.time.Duration;
import java.util.concurrent.Flow;
import kotlin.coroutines.Continuation;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.PriorityOrdered;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.ParallelFlux;

class DistributedLockMethodCheckTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class, FenceLockEtcdAutoConfiguration.class, FenceLockAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory");

    @BeforeEach
    void resetTripwire() {
        Tripwire.TRIPPED.set(false);
    }

    @Test
    void typeReferenceInKeyShouldStopStartupWithoutRunningIt() {
        this.runner.withBean(TypeReferenceKey.class).run((context) -> {
            assertThat(failure(context))
                    .hasMessageContaining("T(dev.fencelock.interceptor.Tripwire).trip()")
                    .hasMessageContaining("TypeReferenceKey.run(String)")
                    .hasMessageContaining("type reference");
            assertThat(Tripwire.TRIPPED).isFalse();
        });
    }

    @Test
    void beanReferenceInKeyShouldStopStartupWithoutRunningIt() {
        this.runner
                .withBean("tripwire", Tripwire.class, () -> {
                    // Constructing the bean trips the wire; reset so only the expression could trip it.
                    Tripwire tripwire = new Tripwire();
                    Tripwire.TRIPPED.set(false);
                    return tripwire;
                })
                .withBean(BeanReferenceKey.class)
                .run((context) -> {
                    assertThat(failure(context))
                            .hasMessageContaining("@tripwire.tripInstance()")
                            .hasMessageContaining("bean reference");
                    assertThat(Tripwire.TRIPPED).isFalse();
                });
    }

    @Test
    void constructorInKeyShouldStopStartupWithoutRunningIt() {
        this.runner.withBean(ConstructorKey.class).run((context) -> {
            assertThat(failure(context))
                    .hasMessageContaining("new dev.fencelock.interceptor.Tripwire()")
                    .hasMessageContaining("constructor");
            assertThat(Tripwire.TRIPPED).isFalse();
        });
    }

    @Test
    void reactiveStreamsPublisherShouldStopStartup() {
        this.runner
                .withBean(ReactiveStreamsService.class)
                .run((context) -> assertThat(failure(context))
                        .hasMessageContaining("ReactiveStreamsService.events()")
                        .hasMessageContaining("org.reactivestreams.Publisher"));
    }

    @Test
    void flowPublisherShouldStopStartup() {
        this.runner
                .withBean(FlowService.class)
                .run((context) -> assertThat(failure(context))
                        .hasMessageContaining("FlowService.events()")
                        .hasMessageContaining("java.util.concurrent.Flow$Publisher"));
    }

    @Test
    void monoAndFluxShouldStartAndBeLocked() {
        this.runner.withBean(MonoAndFluxService.class).run((context) -> {
            assertThat(context).hasNotFailed();
            MonoAndFluxService service = context.getBean(MonoAndFluxService.class);
            assertThat(service.one().block(Duration.ofSeconds(10))).isTrue();
            assertThat(service.many().collectList().block(Duration.ofSeconds(10)))
                    .containsExactly(true);
        });
    }

    @Test
    void otherReactorPublishersShouldStopStartup() {
        this.runner
                .withBean(ParallelFluxService.class)
                .run((context) -> assertThat(failure(context))
                        .hasMessageContaining("ParallelFluxService.events()")
                        .hasMessageContaining("reactor.core.publisher.ParallelFlux")
                        .hasMessageContaining("Mono or a Flux"));
    }

    @Test
    void kotlinSuspendFunctionWithoutLockKotlinShouldStopStartup() {
        this.runner
                .withBean(SuspendingService.class)
                .run((context) -> assertThat(failure(context))
                        .hasMessageContaining("SuspendingService.reserve(String, Continuation)")
                        .hasMessageContaining("Kotlin suspend function")
                        .hasMessageContaining("dev.fencelock:lock-kotlin"));
    }

    @Test
    void privateOrFinalMethodsShouldStopStartup() {
        this.runner
                .withBean(UnproxyableMethods.class)
                .run((context) -> assertThat(failure(context))
                        .hasMessageContaining("UnproxyableMethods.hidden()")
                        .hasMessageContaining("UnproxyableMethods.sealed()")
                        .hasMessageContaining("must not be private, static or final"));
    }

    /**
     * A private method is usually called from its own class ({@code close()} calls {@code
     * this.doClose()}); making it public alone leaves that call unlocked, without a warning.
     */
    @Test
    void privateMethodReportShouldSayToCallItThroughAnotherBean() {
        this.runner
                .withBean(UnproxyableMethods.class)
                .run((context) -> assertThat(failure(context))
                        .hasMessageContaining("through another bean")
                        .hasMessageContaining("this.hidden(...)")
                        .hasMessageNotContaining("Make the method public (or protected) and not final."));
    }

    @Test
    void nameAndKeyTogetherShouldStopStartup() {
        this.runner
                .withBean(NameAndKey.class)
                .run((context) -> assertThat(failure(context))
                        .hasMessageContaining("NameAndKey.run()")
                        .hasMessageContaining("exactly one of name")
                        .hasMessageContaining("both"));
    }

    @Test
    void malformedDurationShouldStopStartup() {
        this.runner
                .withBean(BadDuration.class)
                .run((context) -> assertThat(failure(context))
                        .hasMessageContaining("waitTimeout = \"soon\"")
                        .hasMessageContaining("BadDuration.run()"));
    }

    @Test
    void leaseTtlAboveTheConfiguredMaximumShouldStopStartup() {
        this.runner
                .withBean(LongLease.class)
                .run((context) -> assertThat(failure(context)).hasMessageContaining("fencelock.max-lease-ttl"));
    }

    @Test
    void beanRegisteredAsAReadyMadeInstanceShouldStopStartup() {
        this.runner
                .withInitializer((context) -> context.getBeanFactory().registerSingleton("fine", new Fine()))
                .run((context) -> assertThat(failure(context))
                        .hasMessageContaining("Bean 'fine'")
                        .hasMessageContaining("is not proxied"));
    }

    @Test
    void beanCreatedBeforeAutoProxyingShouldStopStartup() {
        this.runner
                .withUserConfiguration(EarlyBeanConfiguration.class)
                .run((context) -> assertThat(failure(context))
                        .hasMessageContaining("Bean 'fine'")
                        .hasMessageContaining("is not proxied"));
    }

    @Test
    void beanProxiedWithoutTheLockAdviceShouldStopStartup() {
        ProxyFactory factory = new ProxyFactory(new Fine());
        factory.setProxyTargetClass(true);
        factory.addAdvice((MethodInterceptor) MethodInvocation::proceed);
        Object proxy = factory.getProxy();
        this.runner
                .withInitializer((context) -> context.getBeanFactory().registerSingleton("fine", proxy))
                .run((context) -> assertThat(failure(context))
                        .hasMessageContaining("Bean 'fine'")
                        .hasMessageContaining("proxied without the @DistributedLock advice"));
    }

    @Test
    void aopAutoFalseShouldStillProxyAnnotatedBeans() {
        this.runner
                .withPropertyValues("spring.aop.auto=false")
                .withBean(Fine.class)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(AopUtils.isAopProxy(context.getBean(Fine.class))).isTrue();
                });
    }

    @Test
    void validMethodsShouldStart() {
        this.runner.withBean(Fine.class).run((context) -> assertThat(context).hasNotFailed());
    }

    private static Throwable failure(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        Throwable cause = NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure());
        assertThat(cause).isInstanceOf(UnusableDistributedLockMethodsException.class);
        return cause;
    }

    /** A PriorityOrdered post-processor that needs the bean gets it before auto-proxying is set up. */
    @Configuration(proxyBeanMethods = false)
    static class EarlyBeanConfiguration {

        @Bean
        Fine fine() {
            return new Fine();
        }

        @Bean
        static EarlyPostProcessor earlyPostProcessor(ObjectProvider<Fine> fine) {
            return new EarlyPostProcessor(fine.getObject());
        }
    }

    record EarlyPostProcessor(Fine fine) implements BeanPostProcessor, PriorityOrdered {

        @Override
        public int getOrder() {
            return 0;
        }
    }

    public static class TypeReferenceKey {

        @DistributedLock(key = "T(dev.fencelock.interceptor.Tripwire).trip()")
        public void run(String id) {}
    }

    public static class BeanReferenceKey {

        @DistributedLock(key = "@tripwire.tripInstance()")
        public void run(String id) {}
    }

    public static class ConstructorKey {

        @DistributedLock(key = "new dev.fencelock.interceptor.Tripwire()")
        public void run(String id) {}
    }

    public static class ReactiveStreamsService {

        @DistributedLock("events")
        public Publisher<String> events() {
            return (subscriber) -> {};
        }
    }

    public static class FlowService {

        @DistributedLock("events")
        public Flow.Publisher<String> events() {
            return (subscriber) -> {};
        }
    }

    public static class MonoAndFluxService {

        @DistributedLock("one")
        public Mono<Boolean> one() {
            return Mono.fromCallable(() -> FencingContext.current().isPresent());
        }

        @DistributedLock("many")
        public Flux<Boolean> many() {
            return Flux.defer(() -> Flux.just(FencingContext.current().isPresent()));
        }
    }

    public static class ParallelFluxService {

        @DistributedLock("events")
        public ParallelFlux<String> events() {
            return Flux.just("a").parallel();
        }
    }

    /** What the Kotlin compiler makes of {@code @DistributedLock suspend fun reserve(sku: String): Int}. */
    public static class SuspendingService {
        @DistributedLock(key = "#sku")
        public @Nullable Object reserve(String sku, Continuation<? super Integer> continuation) {
            return 1;
        }
    }

    public static class UnproxyableMethods {

        @DistributedLock("hidden")
        private void hidden() {}

        @DistributedLock("sealed")
        public final void sealed() {}
    }

    public static class NameAndKey {

        @DistributedLock(name = "a", key = "'b'")
        public void run() {}
    }

    public static class BadDuration {

        @DistributedLock(name = "a", waitTimeout = "soon")
        public void run() {}
    }

    public static class LongLease {

        @DistributedLock(name = "a", leaseTtl = "1h")
        public void run() {}
    }

    public static class Fine {

        @DistributedLock(key = "'fine:' + #id", waitTimeout = "${missing.property:1s}", leaseTtl = "PT5S")
        public void run(String id) {}
    }
}
