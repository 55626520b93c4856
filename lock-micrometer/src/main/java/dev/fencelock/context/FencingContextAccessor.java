package dev.fencelock.context;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import io.micrometer.context.ThreadLocalAccessor;
import java.util.List;

/**
 * {@link FencingContext} for Micrometer's context propagation: where an application propagates
 * context (an executor wrapped with {@code ContextExecutorService}, Spring's {@code
 * ContextPropagatingTaskDecorator} on an {@code @Async} executor, Reactor with automatic context
 * propagation), work that continues a locked call on another thread runs under the same fences, so
 * its writes are fenced too. Registered through {@code META-INF/services}, so {@code
 * ContextRegistry.getInstance()} finds it without any set-up.
 *
 * <p>A caller without fences propagates that too: the task runs without any, whatever an earlier
 * task left on the pool thread.
 */
public final class FencingContextAccessor implements ThreadLocalAccessor<List<Fence>> {

    /** The key under which the fences travel: {@link FencingContext#CONTEXT_KEY}. */
    public static final String KEY = FencingContext.CONTEXT_KEY;

    @Override
    public Object key() {
        return KEY;
    }

    @Override
    public List<Fence> getValue() {
        // Never null: "no fence" must travel as well, or a pool thread would keep a fence it should not have.
        return FencingContext.all();
    }

    @Override
    public void setValue(List<Fence> fences) {
        FencingContext.setAll(fences);
    }

    @Override
    public void setValue() {
        FencingContext.setAll(List.of());
    }

    @Override
    public void restore(List<Fence> previous) {
        FencingContext.setAll(previous);
    }

    @Override
    public void restore() {
        FencingContext.setAll(List.of());
    }
}
