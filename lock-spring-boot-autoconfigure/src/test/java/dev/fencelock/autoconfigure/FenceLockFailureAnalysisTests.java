package dev.fencelock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

/**
 * What a user reads when FenceLock stops an application at startup: the failure analyses that
 * Spring Boot prints under "APPLICATION FAILED TO START", found through {@code spring.factories}
 * as Boot finds them.
 */
class FenceLockFailureAnalysisTests {

    private static final Log logger = LogFactory.getLog(FenceLockFailureAnalysisTests.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(FenceLockEtcdAutoConfiguration.class, FenceLockAutoConfiguration.class));

    @Test
    void invalidPropertyShouldBeReportedWithItsValueOriginAndReason() {
        FailureAnalysis analysis = analyzeRun("short-lease.properties");
        assertThat(analysis.getDescription())
                .contains("Invalid value '500ms' for configuration property 'fencelock.lease-ttl'")
                .contains("originating from 'class path resource [dev/fencelock/autoconfigure/short-lease.properties]"
                        + " - 2:21'")
                .contains("must be at least 1s, because etcd leases are whole seconds");
        assertThat(analysis.getAction()).contains("Review the value of the property");
    }

    @Test
    void invalidEndpointShouldBeReportedWithTheListsOriginAndTheEntry() {
        FailureAnalysis analysis = analyzeRun("scheme-less-endpoint.properties");
        assertThat(analysis.getDescription())
                .contains("Invalid value 'http://10.0.0.1:2379,localhost:2379' for configuration property"
                        + " 'fencelock.etcd.endpoints'")
                .contains("scheme-less-endpoint.properties] - 1:26'")
                .contains("fencelock.etcd.endpoints[1] ('localhost:2379') must use the http or https scheme");
    }

    @Test
    void unusableMethodsShouldBeReportedOneByOneWithAnAction() {
        AtomicReference<ConfigurableApplicationContext> started = new AtomicReference<>();
        this.runner
                .withPropertyValues("fencelock.backend=in-memory")
                .withInitializer(started::set)
                .withBean(SealedService.class)
                .run((context) -> {
                    FailureAnalysis analysis = analyze(context.getStartupFailure(), started.get());
                    assertThat(analysis.getDescription())
                            .startsWith("2 @DistributedLock method(s) would run without their lock")
                            .contains(" - SealedService.ship(long) in bean")
                            .contains(" - SealedService.hidden() in bean")
                            .contains("must not be private, static or final");
                    assertThat(analysis.getAction()).contains("remove @DistributedLock");
                });
    }

    @Test
    void missingEtcdModuleShouldSayThatEtcdIsTheDefault() {
        AtomicReference<ConfigurableApplicationContext> started = new AtomicReference<>();
        this.runner
                .withClassLoader(new FilteredClassLoader("dev.fencelock.etcd"))
                .withInitializer(started::set)
                .run((context) -> {
                    FailureAnalysis analysis = analyze(context.getStartupFailure(), started.get());
                    assertThat(analysis.getDescription())
                            .isEqualTo("fencelock.backend is 'etcd' (the default), but the etcd backend"
                                    + " (dev.fencelock:lock-etcd) is not on the classpath.");
                    assertThat(analysis.getAction())
                            .contains("lock-spring-boot-starter")
                            .contains("fencelock.backend=in-memory")
                            .contains("fencelock.enabled=false");
                });
    }

    @Test
    void missingEtcdModuleShouldSayWhereTheBackendWasChosen() {
        AtomicReference<ConfigurableApplicationContext> started = new AtomicReference<>();
        this.runner
                .withClassLoader(new FilteredClassLoader("dev.fencelock.etcd"))
                .withPropertyValues("fencelock.backend=etcd")
                .withInitializer(started::set)
                .run((context) -> {
                    FailureAnalysis analysis = analyze(context.getStartupFailure(), started.get());
                    assertThat(analysis.getDescription())
                            .startsWith("fencelock.backend is 'etcd' (set in '")
                            .contains("\"fencelock.backend\" from property source \"test\"");
                });
    }

    /** Starts a real application with {@code file} as its application properties. */
    private static FailureAnalysis analyzeRun(String file) {
        SpringApplication application = new SpringApplication(InMemoryApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setBannerMode(Banner.Mode.OFF);
        application.setRegisterShutdownHook(false);
        AtomicReference<ConfigurableApplicationContext> started = new AtomicReference<>();
        application.addInitializers(started::set);
        Throwable failure = catchThrowable(
                () -> application.run("--spring.config.location=classpath:dev/fencelock/autoconfigure/" + file));
        assertThat(failure).as("startup failure").isNotNull();
        return analyze(failure, started.get());
    }

    /**
     * The first analysis of the registered analyzers, as Spring Boot's {@code FailureAnalyzers}
     * picks it (skipping, as Boot does, analyzers whose libraries are absent).
     */
    private static FailureAnalysis analyze(Throwable failure, ConfigurableApplicationContext context) {
        ArgumentResolver arguments = ArgumentResolver.of(BeanFactory.class, context.getBeanFactory())
                .and(Environment.class, context.getEnvironment());
        List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation(context.getClassLoader())
                .load(FailureAnalyzer.class, arguments, FailureHandler.logging(logger));
        return analyzers.stream()
                .map((analyzer) -> analyzer.analyze(failure))
                .filter(Objects::nonNull)
                .findFirst()
                .orElseThrow(() -> new AssertionError("No failure analysis for " + failure));
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({FenceLockEtcdAutoConfiguration.class, FenceLockAutoConfiguration.class})
    static class InMemoryApplication {}

    public static class SealedService {

        @DistributedLock(key = "'order:' + #orderId")
        public final void ship(long orderId) {}

        @DistributedLock("hidden")
        private void hidden() {}
    }
}
