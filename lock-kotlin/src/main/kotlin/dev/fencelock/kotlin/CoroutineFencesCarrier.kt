package dev.fencelock.kotlin

import dev.fencelock.FencingContext.Fence
import dev.fencelock.interceptor.SuspendingCallContext
import dev.fencelock.interceptor.SuspendingCallContext.CoroutineRun
import java.util.concurrent.atomic.AtomicBoolean
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.Continuation
import kotlin.coroutines.CoroutineContext
import kotlinx.coroutines.Job
import kotlinx.coroutines.ThreadContextElement

/**
 * Gives a locked suspend function's coroutine its fences: Spring runs the function in a coroutine
 * of its continuation argument's context, so the continuation passed on carries a [FenceElement],
 * and a [RunWatch] that tells the call when that coroutine has completed. Found by lock-spring with
 * [java.util.ServiceLoader].
 */
class CoroutineFencesCarrier : SuspendingCallContext {

    override fun carrying(continuation: Any, fences: List<Fence>, run: CoroutineRun): Any {
        @Suppress("UNCHECKED_CAST")
        return FencedContinuation(continuation as Continuation<Any?>, fences, run)
    }
}

/** [delegate] with [fences] and a [RunWatch] in its context; results go to [delegate] unchanged. */
internal class FencedContinuation(private val delegate: Continuation<Any?>, fences: List<Fence>, run: CoroutineRun) :
    Continuation<Any?> {

    override val context: CoroutineContext = delegate.context + FenceElement(fences) + RunWatch(run)

    override fun resumeWith(result: Result<Any?>) {
        delegate.resumeWith(result)
    }
}

/**
 * Finds the [Job] of the coroutine that runs a locked function, the first time that coroutine
 * runs a step (a [ThreadContextElement] is handed the coroutine's whole context then), and tells
 * [run] when it has completed: after a cancellation, once its `finally` blocks and children are
 * done. Children inherit the element; only the first step, the function's own, counts.
 */
internal class RunWatch(private val run: CoroutineRun) :
    AbstractCoroutineContextElement(Key), ThreadContextElement<Unit> {

    companion object Key : CoroutineContext.Key<RunWatch>

    private val seen = AtomicBoolean()

    override fun updateThreadContext(context: CoroutineContext) {
        if (seen.compareAndSet(false, true) && run.starting()) {
            val job = context[Job]
            if (job == null) {
                run.completed()
            } else {
                job.invokeOnCompletion { run.completed() }
            }
        }
    }

    override fun restoreThreadContext(context: CoroutineContext, oldState: Unit) {}
}
