package dev.fencelock.interceptor;

import dev.fencelock.FencingContext.Fence;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Carries a locked Kotlin {@code suspend} function's fences into the coroutine that runs it. Spring
 * runs the function in a coroutine whose context is that of the caller's continuation (the
 * function's last argument); {@link ReactiveLockCall} passes it the continuation this returns, so
 * that the fences stay with the coroutine across suspension points and threads.
 *
 * <p>The module {@code lock-kotlin} provides the implementation (found with {@link ServiceLoader});
 * without it {@code @DistributedLock} on a suspend function is refused at startup. This interface
 * names no Kotlin type, so that lock-spring loads no Kotlin class of its own.
 */
public interface SuspendingCallContext {

    /**
     * The continuation to pass to the function in place of {@code continuation}: its context
     * carries {@code fences}, and its results go to {@code continuation}. The coroutine that runs
     * the function tells {@code run} when it starts and when it has completed.
     *
     * @param continuation the caller's {@code kotlin.coroutines.Continuation}
     * @param fences the fences of the locks of the call and of enclosing calls, innermost last
     * @param run told about the coroutine that runs the function
     */
    Object carrying(Object continuation, List<Fence> fences, CoroutineRun run);

    /**
     * The life of the coroutine that runs a locked suspend function. A cancelled coroutine goes on
     * running its {@code finally} blocks (and its children) after the cancellation has reached the
     * publisher, so the lock is released only once it has completed.
     */
    interface CoroutineRun {

        /**
         * The coroutine is about to run its first step. {@code false} when the call ended before
         * (the coroutine was cancelled before it ran): then nothing waits for its completion.
         */
        boolean starting();

        /** The coroutine has completed: its {@code finally} blocks and its children are done. */
        void completed();
    }

    /** The implementation on the class path of lock-spring, if any. */
    static Optional<SuspendingCallContext> find() {
        return Holder.FOUND;
    }

    /** Looked up once: the class path does not change while the application runs. */
    final class Holder {

        private static final Optional<SuspendingCallContext> FOUND = ServiceLoader.load(
                        SuspendingCallContext.class, SuspendingCallContext.class.getClassLoader())
                .findFirst();

        private Holder() {}
    }
}
