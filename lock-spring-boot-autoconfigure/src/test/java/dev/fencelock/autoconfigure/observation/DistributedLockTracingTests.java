package dev.fencelock.autoconfigure.observation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * With tracing, a locked call is two spans of the caller's trace: the wait, then the held section,
 * whose span is the parent of whatever the method does under the lock.
 */
class DistributedLockTracingTests {

    private final SimpleTracer tracer = new SimpleTracer();

    private final ObservationRegistry registry = ObservationRegistry.create();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockObservationAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory")
            .withBean(ObservationRegistry.class, () -> this.registry)
            .withBean(ShippingService.class);

    DistributedLockTracingTests() {
        this.registry.observationConfig().observationHandler(new DefaultTracingObservationHandler(this.tracer));
    }

    @Test
    void lockedCallShouldBeAWaitSpanAndAHeldSpanThatParentsTheWorkUnderTheLock() {
        this.runner.run((context) -> {
            ShippingService service = context.getBean(ShippingService.class);
            Observation.createNotStarted("http.request", this.registry).observe(() -> service.ship("42"));

            Map<String, SimpleSpan> spans =
                    this.tracer.getSpans().stream().collect(Collectors.toMap(SimpleSpan::getName, Function.identity()));
            assertThat(spans)
                    .containsOnlyKeys("http.request", "acquire 'order:' + #id", "locked 'order:' + #id", "label.print");
            SimpleSpan request = spans.get("http.request");
            SimpleSpan acquire = spans.get("acquire 'order:' + #id");
            SimpleSpan locked = spans.get("locked 'order:' + #id");
            SimpleSpan work = spans.get("label.print");

            assertThat(acquire.getParentId()).isEqualTo(request.getSpanId());
            assertThat(locked.getParentId()).isEqualTo(request.getSpanId());
            assertThat(work.getParentId()).isEqualTo(locked.getSpanId());
            assertThat(spans.values()).extracting(SimpleSpan::getTraceId).containsOnly(request.getTraceId());

            assertThat(acquire.getTags())
                    .containsEntry("lock", "'order:' + #id")
                    .containsEntry("outcome", "acquired")
                    .containsEntry("fencelock.resource", "order:42")
                    .containsKey("fencelock.token");
            assertThat(locked.getTags())
                    .containsEntry("lock", "'order:' + #id")
                    .containsEntry("fencelock.resource", "order:42")
                    .containsEntry("fencelock.token", acquire.getTags().get("fencelock.token"));
            // The held section starts when the wait has ended and ends after the work.
            assertThat(locked.getStartTimestamp()).isAfterOrEqualTo(acquire.getEndTimestamp());
            assertThat(locked.getEndTimestamp()).isAfterOrEqualTo(work.getEndTimestamp());
        });
    }

    public static class ShippingService {

        private final ObservationRegistry registry;

        public ShippingService(ObservationRegistry registry) {
            this.registry = registry;
        }

        @DistributedLock(key = "'order:' + #id")
        public void ship(String id) {
            Observation.createNotStarted("label.print", this.registry).observe(() -> {});
        }
    }
}
