package dev.fencelock.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.fencelock.actuate.FenceLockEndpoint;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.sample.stock.StockService;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringApplicationHook;
import org.springframework.boot.SpringApplicationRunListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

/**
 * Spring's AOT processing of the sample application, as its build would run it for a native
 * image: the context is prepared by the application's own {@code main} (stopped before refresh, as
 * Spring Boot's AOT processor does), then processed ahead of time, and the runtime hints that the
 * lock annotation and the {@code fencelock} endpoint need are checked. No native image is built
 * here (no GraalVM): this is the evidence for AOT readiness.
 */
class InventoryAotProcessingTests {

    @Test
    void aheadOfTimeProcessingRegistersTheHintsOfLockedMethodsAndOfTheEndpoint() throws Exception {
        RuntimeHints hints = processAheadOfTime();

        assertThat(RuntimeHintsPredicates.reflection()
                        .onType(DistributedLock.class)
                        .withMemberCategory(MemberCategory.INVOKE_DECLARED_METHODS))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
                        .onMethodInvocation(
                                StockService.class.getMethod("reserve", String.class, int.class, Duration.class)))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
                        .onMethodInvocation(StockService.class.getMethod("set", String.class, int.class)))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
                        .onMethodInvocation(FenceLockEndpoint.HeldLocksDescriptor.class.getMethod("locks")))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
                        .onMethodInvocation(FenceLockEndpoint.HeldLockDescriptor.class.getMethod("fencingToken")))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
                        .onMethodInvocation(FenceLockEndpoint.QueueDescriptor.class.getMethod("waiters")))
                .accepts(hints);
    }

    private static RuntimeHints processAheadOfTime() {
        GenericApplicationContext context = preparedContext();
        DefaultGenerationContext generation = new DefaultGenerationContext(
                new ClassNameGenerator(ClassName.get(InventoryApplication.class)), new InMemoryGeneratedFiles());
        new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
        return generation.getRuntimeHints();
    }

    /** The application's context as its main method prepares it, abandoned before refresh. */
    private static GenericApplicationContext preparedContext() {
        SpringApplicationHook stopBeforeRefresh = (application) -> new SpringApplicationRunListener() {
            @Override
            public void contextLoaded(ConfigurableApplicationContext context) {
                throw new SpringApplication.AbandonedRunException(context);
            }
        };
        SpringApplication.AbandonedRunException abandoned = assertThatExceptionOfType(
                        SpringApplication.AbandonedRunException.class)
                .isThrownBy(() -> SpringApplication.withHook(
                        stopBeforeRefresh,
                        () -> InventoryApplication.main(new String[] {"--spring.main.banner-mode=off"})))
                .actual();
        return (GenericApplicationContext) abandoned.getApplicationContext();
    }
}
