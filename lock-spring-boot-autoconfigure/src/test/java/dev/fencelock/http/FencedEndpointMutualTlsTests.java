package dev.fencelock.http;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.annotation.FencedEndpoint;
import dev.fencelock.audit.LockAuditLog;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.autoconfigure.http.FenceLockHttpAutoConfiguration;
import dev.fencelock.autoconfigure.http.FenceLockHttpClientAutoConfiguration;
import dev.fencelock.autoconfigure.http.FenceLockHttpServerAutoConfiguration;
import dev.fencelock.test.etcd.TestCertificates;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.tomcat.autoconfigure.reactive.TomcatReactiveWebServerAutoConfiguration;
import org.springframework.boot.web.server.reactive.context.AnnotationConfigReactiveWebServerApplicationContext;
import org.springframework.boot.web.server.reactive.context.ReactiveWebServerApplicationContext;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.boot.webflux.autoconfigure.HttpHandlerAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Fences trusted by the caller's client certificate, end to end: a WebFlux service on Tomcat over
 * HTTPS that asks for client certificates ({@code client-auth=want}, so a caller without one still
 * reaches it), called through a {@code WebClient} with FenceLock's unsigned fence header. The
 * certificates are made by a test authority at test time.
 */
class FencedEndpointMutualTlsTests {

    private static final TestCertificates certificates = TestCertificates.create();

    private static final Path intruder = certificates.issueClient("intruder", "intruder", false);

    private static final Fence ORDER = new Fence("order:42", 1043, null);

    private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner(
                    AnnotationConfigReactiveWebServerApplicationContext::new)
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockHttpAutoConfiguration.class,
                    FenceLockHttpClientAutoConfiguration.class,
                    FenceLockHttpServerAutoConfiguration.class,
                    SslAutoConfiguration.class,
                    JacksonAutoConfiguration.class,
                    CodecsAutoConfiguration.class,
                    WebFluxAutoConfiguration.class,
                    HttpHandlerAutoConfiguration.class,
                    TomcatReactiveWebServerAutoConfiguration.class))
            .withUserConfiguration(Controllers.class)
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues(
                    "fencelock.backend=in-memory",
                    "fencelock.http.server.trust=mutual-tls",
                    "fencelock.http.server.trusted-subjects=CN=" + TestCertificates.CLIENT_COMMON_NAME,
                    "fencelock.http.client.unsigned=true",
                    "server.port=0",
                    "server.address=127.0.0.1",
                    "server.ssl.bundle=server",
                    "server.ssl.client-auth=want",
                    "spring.ssl.bundle.pem.server.keystore.certificate=" + file(certificates.serverCertificate()),
                    "spring.ssl.bundle.pem.server.keystore.private-key=" + file(certificates.serverKey()),
                    "spring.ssl.bundle.pem.server.truststore.certificate=" + file(certificates.caCertificate()),
                    "spring.ssl.bundle.pem.orders.keystore.certificate=" + file(certificates.clientCertificate()),
                    "spring.ssl.bundle.pem.orders.keystore.private-key=" + file(certificates.clientKey()),
                    "spring.ssl.bundle.pem.orders.truststore.certificate=" + file(certificates.caCertificate()),
                    "spring.ssl.bundle.pem.intruder.keystore.certificate=" + file(intruder),
                    "spring.ssl.bundle.pem.intruder.keystore.private-key="
                            + file(intruder.resolveSibling("intruder.key")),
                    "spring.ssl.bundle.pem.intruder.truststore.certificate=" + file(certificates.caCertificate()),
                    "spring.ssl.bundle.pem.anonymous.truststore.certificate=" + file(certificates.caCertificate()));

    private final ListAppender<ILoggingEvent> audit = new ListAppender<>();

    private final Logger auditLogger = (Logger) LoggerFactory.getLogger(LockAuditLog.LOGGER_NAME);

    private Level auditLevel;

    @BeforeAll
    static void propagateContextAutomatically() {
        Hooks.enableAutomaticContextPropagation();
    }

    @AfterAll
    static void stopPropagatingContext() {
        Hooks.disableAutomaticContextPropagation();
    }

    @BeforeEach
    void captureAuditLog() {
        this.audit.start();
        this.auditLevel = this.auditLogger.getLevel();
        this.auditLogger.setLevel(Level.DEBUG);
        this.auditLogger.addAppender(this.audit);
    }

    @AfterEach
    void stopCapturing() {
        this.auditLogger.detachAppender(this.audit);
        this.auditLogger.setLevel(this.auditLevel);
    }

    @Test
    void unsignedFenceFromACallerWithATrustedCertificateIsOpenedForTheRequest() {
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed();
            ResponseEntity<String> answer = callUnderTheFence(context, "orders");

            assertThat(answer.getStatusCode().value()).isEqualTo(200);
            assertThat(answer.getBody()).isEqualTo("order:42@1043");
            assertThat(auditLines())
                    .anyMatch(line -> line.startsWith("event=http-fence outcome=accepted")
                            && line.contains("keyId=- clientSubject=\"CN=" + TestCertificates.CLIENT_COMMON_NAME)
                            && line.contains("caller=\"CN=" + TestCertificates.CLIENT_COMMON_NAME));
        });
    }

    @Test
    void unsignedFenceWithoutAClientCertificateOrFromAnUntrustedOneIsRefused() {
        this.runner.run((context) -> {
            assertThat(context).hasNotFailed();
            for (String bundle : List.of("anonymous", "intruder")) {
                ResponseEntity<String> answer = callUnderTheFence(context, bundle);
                assertThat(answer.getStatusCode().value()).as(bundle).isEqualTo(403);
                assertThat(answer.getBody()).as(bundle).contains("\"reason\":\"untrusted-caller\"");
            }
            assertThat(context.getBean(MeterRegistry.class)
                            .get("fencelock.http.fence.refused")
                            .tag("reason", "untrusted-caller")
                            .counter()
                            .count())
                    .isEqualTo(2);
            assertThat(auditLines())
                    .filteredOn(line -> line.startsWith("event=http-fence outcome=refused reason=untrusted-caller"))
                    .hasSize(2)
                    .anyMatch(line -> line.contains("caller=\"127.0.0.1\""))
                    .anyMatch(line -> line.contains("caller=\"CN=intruder\""));
        });
    }

    /** A call made under the order's fence, through a WebClient that presents the bundle's certificate. */
    private static ResponseEntity<String> callUnderTheFence(ApplicationContext context, String bundle) {
        HttpClient http = HttpClient.newBuilder()
                .sslContext(context.getBean(SslBundles.class).getBundle(bundle).createSslContext())
                .build();
        WebClient.Builder builder = WebClient.builder()
                .clientConnector(new JdkClientHttpConnector(http))
                .baseUrl("https://127.0.0.1:" + port(context));
        context.getBean(WebClientCustomizer.class).customize(builder);
        try (FencingContext.Scope scope = FencingContext.push(ORDER)) {
            return builder.build()
                    .get()
                    .uri("/fences")
                    .exchangeToMono((response) -> response.toEntity(String.class))
                    .block();
        }
    }

    private static int port(ApplicationContext context) {
        ApplicationContext source = context;
        if (context
                instanceof org.springframework.boot.test.context.assertj.ApplicationContextAssertProvider<?> provider) {
            source = provider.getSourceApplicationContext();
        }
        return ((ReactiveWebServerApplicationContext) source).getWebServer().getPort();
    }

    private static String file(Path path) {
        return "file:" + path.toAbsolutePath();
    }

    private List<String> auditLines() {
        return this.audit.list.stream().map(ILoggingEvent::getFormattedMessage).collect(Collectors.toList());
    }

    @Configuration(proxyBeanMethods = false)
    static class Controllers {

        @Bean
        FencesController fencesController() {
            return new FencesController();
        }
    }

    @RestController
    static class FencesController {

        /** Read on another scheduler, where only the Reactor context carries the fences. */
        @FencedEndpoint
        @GetMapping("/fences")
        Mono<String> fences() {
            return Mono.fromCallable(() -> FencingContext.all().stream()
                            .map(fence -> fence.resource() + "@" + fence.token())
                            .collect(Collectors.joining(",")))
                    .subscribeOn(Schedulers.boundedElastic());
        }
    }
}
