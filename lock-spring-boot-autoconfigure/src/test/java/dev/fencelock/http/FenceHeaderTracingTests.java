package dev.fencelock.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import dev.fencelock.FencingContext;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.annotation.FencedEndpoint;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.autoconfigure.http.FenceLockHttpAutoConfiguration;
import dev.fencelock.autoconfigure.http.FenceLockHttpClientAutoConfiguration;
import dev.fencelock.autoconfigure.http.FenceLockHttpServerAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration;
import org.springframework.boot.micrometer.tracing.brave.autoconfigure.BraveAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientObservationAutoConfiguration;
import org.springframework.boot.test.context.assertj.ApplicationContextAssertProvider;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration;
import org.springframework.boot.web.server.servlet.context.AnnotationConfigServletWebServerApplicationContext;
import org.springframework.boot.web.server.servlet.context.ServletWebServerApplicationContext;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcObservationAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

/**
 * A fenced call between two services is one trace: the caller, holding a lock, calls a fenced
 * Spring MVC endpoint on Tomcat through Boot's {@code RestClient}, both applications trace with
 * Brave through Boot's tracing auto-configuration and W3C propagation, and each records the spans it
 * finishes.
 */
class FenceHeaderTracingTests {

    private static final String SECRET =
            Base64.getEncoder().encodeToString("the services' shared secret.....".getBytes());

    private static final String ORDER_IN_HEADER =
            Base64.getUrlEncoder().withoutPadding().encodeToString("order:42".getBytes());

    private static final String[] TRACING = {
        "management.tracing.sampling.probability=1.0", "management.tracing.propagation.type=W3C"
    };

    private final List<MutableSpan> callerSpans = new CopyOnWriteArrayList<>();

    private final List<MutableSpan> inventorySpans = new CopyOnWriteArrayList<>();

    private final WebApplicationContextRunner inventory = new WebApplicationContextRunner(
                    AnnotationConfigServletWebServerApplicationContext::new)
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockHttpAutoConfiguration.class,
                    FenceLockHttpServerAutoConfiguration.class,
                    ObservationAutoConfiguration.class,
                    MicrometerTracingAutoConfiguration.class,
                    BraveAutoConfiguration.class,
                    JacksonAutoConfiguration.class,
                    HttpMessageConvertersAutoConfiguration.class,
                    DispatcherServletAutoConfiguration.class,
                    WebMvcAutoConfiguration.class,
                    WebMvcObservationAutoConfiguration.class,
                    TomcatServletWebServerAutoConfiguration.class))
            .withBean(ReservationController.class)
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withBean(SpanHandler.class, () -> recording(this.inventorySpans))
            .withPropertyValues(TRACING)
            .withPropertyValues(
                    "fencelock.backend=in-memory",
                    "fencelock.http.signing.keys.k1=" + SECRET,
                    "server.port=0",
                    "server.address=127.0.0.1");

    private final ApplicationContextRunner orders = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockHttpAutoConfiguration.class,
                    FenceLockHttpClientAutoConfiguration.class,
                    ObservationAutoConfiguration.class,
                    MicrometerTracingAutoConfiguration.class,
                    BraveAutoConfiguration.class,
                    HttpMessageConvertersAutoConfiguration.class,
                    RestClientAutoConfiguration.class,
                    RestClientObservationAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withBean(SpanHandler.class, () -> recording(this.callerSpans))
            .withPropertyValues(TRACING)
            .withPropertyValues(
                    "fencelock.backend=in-memory",
                    "fencelock.http.signing.keys.k1=" + SECRET,
                    "fencelock.http.signing.current-key=k1");

    @Test
    void downstreamRequestSpanIsTheRemoteChildOfTheFencedCallersClientSpan() {
        this.inventory.run((inventory) -> {
            assertThat(inventory).hasNotFailed();
            int port = port(inventory);
            this.orders.run((orders) -> {
                assertThat(orders).hasNotFailed();
                RestClient client = orders.getBean(RestClient.Builder.class)
                        .baseUrl("http://127.0.0.1:" + port)
                        .build();
                String answer;
                long token;
                try (LockLease lease = orders.getBean(LockClient.class).acquire(LockRequest.of("order:42"));
                        FencingContext.Scope fence = FencingContext.open(lease)) {
                    token = lease.fencingToken();
                    answer = client.get().uri("/reservations").retrieve().body(String.class);
                }

                MutableSpan call =
                        await().until(() -> only(this.callerSpans, brave.Span.Kind.CLIENT), (span) -> span != null);
                MutableSpan request =
                        await().until(() -> only(this.inventorySpans, brave.Span.Kind.SERVER), (span) -> span != null);

                // The endpoint ran under the caller's fence, which came in the signed header.
                assertThat(answer)
                        .startsWith("fences=order:42@" + token + " ")
                        .contains(" fenceHeader=v=1; kid=k1; ")
                        .contains("; fences=" + ORDER_IN_HEADER + ":" + token + "; sig=")
                        .contains("traceparent=00-" + call.traceId() + "-" + call.id() + "-01");
                // One trace over both services: the server's span is the child of the caller's.
                assertThat(request.traceId()).isEqualTo(call.traceId());
                assertThat(request.parentId()).isEqualTo(call.id());
                assertThat(request.id()).isNotEqualTo(call.id());
                assertThat(request.tags()).containsEntry("http.url", "/reservations");
            });
        });
    }

    private static MutableSpan only(List<MutableSpan> spans, brave.Span.Kind kind) {
        List<MutableSpan> ofKind =
                spans.stream().filter((span) -> span.kind() == kind).collect(Collectors.toList());
        assertThat(ofKind).hasSizeLessThanOrEqualTo(1);
        return ofKind.isEmpty() ? null : ofKind.get(0);
    }

    private static SpanHandler recording(List<MutableSpan> spans) {
        return new SpanHandler() {
            @Override
            public boolean end(TraceContext context, MutableSpan span, Cause cause) {
                if (cause == Cause.FINISHED) {
                    spans.add(span);
                }
                return true;
            }
        };
    }

    private static int port(ApplicationContext context) {
        ApplicationContext source = context;
        if (context instanceof ApplicationContextAssertProvider<?> provider) {
            source = provider.getSourceApplicationContext();
        }
        return ((ServletWebServerApplicationContext) source).getWebServer().getPort();
    }

    @RestController
    static class ReservationController {

        @FencedEndpoint
        @GetMapping("/reservations")
        String reserve(
                @RequestHeader(FenceHeader.NAME) String fenceHeader, @RequestHeader("traceparent") String traceparent) {
            String fences = FencingContext.all().stream()
                    .map((fence) -> fence.resource() + "@" + fence.token())
                    .collect(Collectors.joining(","));
            return "fences=" + fences + " fenceHeader=" + fenceHeader + " traceparent=" + traceparent;
        }
    }
}
