package dev.fencelock.kotlin

import dev.fencelock.FencingContext
import dev.fencelock.FencingContext.Fence
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.coroutineContext
import kotlinx.coroutines.ThreadContextElement

/**
 * The fences of the locks a coroutine holds, innermost last, as an element of its context.
 *
 * A coroutine is not bound to a thread, so [FencingContext] alone cannot follow it. While the
 * coroutine runs on a thread, this element puts its fences into that thread's [FencingContext]
 * and takes them away when the coroutine suspends; a blocking JDBC call inside
 * `withContext(Dispatchers.IO) { ... }` therefore presents the token like any locked thread.
 */
class FenceElement(val fences: List<Fence>) :
    AbstractCoroutineContextElement(Key), ThreadContextElement<FencingContext.Scope> {

    /** The key of the element in a coroutine context. */
    companion object Key : CoroutineContext.Key<FenceElement>

    /** The innermost fence. */
    val fence: Fence?
        get() = fences.lastOrNull()

    override fun updateThreadContext(context: CoroutineContext): FencingContext.Scope =
        FencingContext.restore(fences)

    override fun restoreThreadContext(context: CoroutineContext, oldState: FencingContext.Scope) {
        oldState.close()
    }

    /** This element with [added] appended; enclosing fences stay visible, innermost last. */
    internal operator fun plus(added: List<Fence>): FenceElement = FenceElement(fences + added)

    override fun toString(): String = "FenceElement(" + fences.joinToString { it.resource + "@" + it.token } + ")"
}

/** The innermost fence of the locks this coroutine holds, or `null` when it holds none. */
suspend fun currentFence(): Fence? = coroutineContext[FenceElement]?.fence

/** The fence of [resource] when this coroutine holds its lock, or `null`. */
suspend fun currentFence(resource: String): Fence? =
    coroutineContext[FenceElement]?.fences?.lastOrNull { it.resource == resource }

/** The fences of every lock this coroutine holds, innermost last. */
suspend fun currentFences(): List<Fence> = coroutineContext[FenceElement]?.fences ?: emptyList()
