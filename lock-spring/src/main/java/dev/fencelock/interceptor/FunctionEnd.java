package dev.fencelock.interceptor;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * When the code of one call of a locked method has stopped running, so that its lock may go. A
 * {@code Mono} method's code is done when its publisher terminates or is cancelled; a suspend
 * function's coroutine goes on after a cancellation until its {@code finally} blocks have run,
 * and tells this through {@link SuspendingCallContext.CoroutineRun}.
 */
final class FunctionEnd implements SuspendingCallContext.CoroutineRun {

    private static final int NOT_STARTED = 0;

    private static final int RUNNING = 1;

    private static final int ENDED = 2;

    private final AtomicInteger state = new AtomicInteger(NOT_STARTED);

    private final CompletableFuture<Void> ended = new CompletableFuture<>();

    @Override
    public boolean starting() {
        return this.state.compareAndSet(NOT_STARTED, RUNNING);
    }

    @Override
    public void completed() {
        this.state.set(ENDED);
        this.ended.complete(null);
    }

    /**
     * Completes once the call's code has stopped running; asked after its publisher terminated or
     * was cancelled. A coroutine that had not started by then never runs a step, being cancelled.
     */
    CompletableFuture<Void> ended() {
        if (this.state.compareAndSet(NOT_STARTED, ENDED)) {
            this.ended.complete(null);
        }
        return this.ended;
    }
}
