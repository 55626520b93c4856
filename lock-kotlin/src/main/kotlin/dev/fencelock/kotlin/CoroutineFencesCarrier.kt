package dev.fencelock.kotlin

import dev.fencelock.FencingContext.Fence
import dev.fencelock.interceptor.SuspendingCallContext
import kotlin.coroutines.Continuation
import kotlin.coroutines.CoroutineContext

/**
 * Gives a locked suspend function's coroutine its fences: Spring runs the function in a coroutine
 * of its continuation argument's context, so the continuation passed on carries a [FenceElement].
 * Found by lock-spring with [java.util.ServiceLoader].
 */
class CoroutineFencesCarrier : SuspendingCallContext {

    override fun carrying(continuation: Any, fences: List<Fence>): Any {
        @Suppress("UNCHECKED_CAST")
        return FencedContinuation(continuation as Continuation<Any?>, fences)
    }
}

/** [delegate] with [fences] in its context; results go to [delegate] unchanged. */
internal class FencedContinuation(private val delegate: Continuation<Any?>, fences: List<Fence>) :
    Continuation<Any?> {

    override val context: CoroutineContext = delegate.context + FenceElement(fences)

    override fun resumeWith(result: Result<Any?>) {
        delegate.resumeWith(result)
    }
}
