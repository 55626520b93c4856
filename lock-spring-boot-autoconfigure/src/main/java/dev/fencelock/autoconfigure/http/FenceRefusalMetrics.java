package dev.fencelock.autoconfigure.http;

import dev.fencelock.http.FenceCaller;
import dev.fencelock.http.FenceHeaderListener;
import dev.fencelock.http.FenceHeaderRefusedException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Counts the requests that fenced endpoints refused, by reason: {@value #NAME}. The registry is
 * looked up at each refusal, so the count starts whenever the application has one.
 */
final class FenceRefusalMetrics implements FenceHeaderListener {

    static final String NAME = "fencelock.http.fence.refused";

    private final ObjectProvider<MeterRegistry> registry;

    FenceRefusalMetrics(ObjectProvider<MeterRegistry> registry) {
        this.registry = registry;
    }

    @Override
    public void refused(FenceCaller caller, String method, String path, FenceHeaderRefusedException refusal) {
        this.registry.ifAvailable((registry) -> Counter.builder(NAME)
                .description("Requests to fenced endpoints refused before they ran, by reason")
                .tag("reason", refusal.reason().tag())
                .register(registry)
                .increment());
    }
}
