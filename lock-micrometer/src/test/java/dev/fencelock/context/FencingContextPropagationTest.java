package dev.fencelock.context;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import io.micrometer.context.ContextExecutorService;
import io.micrometer.context.ContextSnapshotFactory;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The fences of the current thread travel where the application propagates context with
 * Micrometer's context-propagation: executors wrapped with it, and Reactor with automatic context
 * propagation. Work that continues a locked call on another thread then writes under the same fence.
 */
class FencingContextPropagationTest {

    private final ExecutorService plain = Executors.newSingleThreadExecutor();

    @AfterEach
    void cleanUp() throws InterruptedException {
        this.plain.shutdownNow();
        assertThat(this.plain.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        Hooks.disableAutomaticContextPropagation();
        assertThat(FencingContext.all()).isEmpty();
    }

    @Test
    void aWrappedExecutorRunsTheTaskUnderTheCallersFences() throws Exception {
        ExecutorService propagating = ContextExecutorService.wrap(
                this.plain, ContextSnapshotFactory.builder().build());
        Fence outer = new Fence("order:1", 7, null);
        Fence inner = new Fence("order:2", 9, null);

        List<Fence> seen;
        try (FencingContext.Scope first = FencingContext.push(outer);
                FencingContext.Scope second = FencingContext.push(inner)) {
            seen = propagating.submit(FencingContext::all).get(10, TimeUnit.SECONDS);
        }

        assertThat(seen).containsExactly(outer, inner);
        // The pool thread is left as it was: no fence stays behind for its next task.
        assertThat(this.plain.submit(FencingContext::all).get(10, TimeUnit.SECONDS))
                .isEmpty();
    }

    @Test
    void aTaskOnAWrappedExecutorSeesNoFenceWhenItsCallerHadNone() throws Exception {
        ExecutorService propagating = ContextExecutorService.wrap(
                this.plain, ContextSnapshotFactory.builder().build());
        try (FencingContext.Scope leftOver = FencingContext.push(new Fence("order:9", 1, null))) {
            // A pool thread with a fence of its own, as a task that forgot to pop it would leave.
            this.plain
                    .submit(() -> FencingContext.setAll(List.of(new Fence("stale", 1, null))))
                    .get();
        }
        Optional<Fence> seen = propagating.submit(FencingContext::current).get(10, TimeUnit.SECONDS);
        assertThat(seen).isEmpty();
        this.plain.submit(() -> FencingContext.setAll(List.of())).get();
    }

    @Test
    void reactorCarriesTheFenceAcrossSchedulers() {
        Hooks.enableAutomaticContextPropagation();
        Fence fence = new Fence("order:3", 11, null);

        Optional<Fence> seen;
        try (FencingContext.Scope scope = FencingContext.push(fence)) {
            seen = Mono.just(1)
                    .publishOn(Schedulers.boundedElastic())
                    .map(ignored -> FencingContext.current())
                    .contextCapture()
                    .block();
        }

        assertThat(seen).contains(fence);
    }

    @Test
    void aContinuationOfACompletableFutureOnAWrappedExecutorKeepsTheFence() throws Exception {
        ExecutorService propagating = ContextExecutorService.wrap(
                this.plain, ContextSnapshotFactory.builder().build());
        Fence fence = new Fence("order:4", 13, null);
        CompletableFuture<Optional<Fence>> continued;
        try (FencingContext.Scope scope = FencingContext.push(fence)) {
            continued = CompletableFuture.supplyAsync(() -> 1, propagating)
                    .thenApplyAsync(ignored -> FencingContext.current(), propagating);
        }
        assertThat(continued.get(10, TimeUnit.SECONDS)).contains(fence);
    }
}
