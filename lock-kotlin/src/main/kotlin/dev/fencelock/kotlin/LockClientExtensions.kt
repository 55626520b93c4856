package dev.fencelock.kotlin

import dev.fencelock.FencingContext
import dev.fencelock.LockClient
import dev.fencelock.LockLease
import dev.fencelock.LockRequest
import dev.fencelock.ResourceName
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException
import java.util.concurrent.ExecutionException
import kotlin.coroutines.coroutineContext
import kotlin.coroutines.resume
import kotlin.coroutines.resumeWithException
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.reactor.ReactorContext
import kotlinx.coroutines.future.await
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlinx.coroutines.withContext
import reactor.util.context.Context

/**
 * Runs [block] while holding the lock of [resource], without blocking a thread while waiting for it.
 *
 * The lock is acquired with [LockClient.acquireAsync], held across the block's suspension points,
 * and released when the block returns, fails or is cancelled; cancelling the coroutine while it
 * waits abandons the wait. Inside the block the fence is in the coroutine context ([currentFence])
 * and in [FencingContext] on whichever thread the block runs, and in the Reactor context under
 * [FencingContext.CONTEXT_KEY] for the Monos it awaits. Inside a block or a locked suspend function
 * that holds the same resource, the lock is re-entered: same token, no call to the store; so is a
 * locked `Mono` or suspend function of the same key called inside the block.
 *
 * @param waitTimeout how long to wait for the lock, or `null` for the client's default
 * @param leaseTtl the lease's time to live, or `null` for the client's default
 * @throws dev.fencelock.LockAcquisitionTimeoutException when the lock stayed busy for [waitTimeout]
 */
suspend fun <T> LockClient.withLock(
    resource: String,
    waitTimeout: Duration? = null,
    leaseTtl: Duration? = null,
    block: suspend (LockLease) -> T,
): T {
    val request = LockRequest.builder(resource)
    waitTimeout?.let { request.waitTimeout(it) }
    leaseTtl?.let { request.leaseTtl(it) }
    return withLock(request.build(), block)
}

/**
 * Runs [block] while holding the lock [request] describes; see the other `withLock` for what
 * holds. A request id of its own is replaced by that of an enclosing block of the same resource.
 */
suspend fun <T> LockClient.withLock(request: LockRequest, block: suspend (LockLease) -> T): T {
    val enclosing = coroutineContext[FenceElement]
    val outer = enclosing?.fences?.lastOrNull { it.resource == normalised(request) && it.lease != null }?.lease
    val effective = if (outer != null) reentering(request, outer) else request
    val lease = acquireAsync(effective).awaitLease()
    try {
        val fence = FencingContext.Fence(lease.resource(), lease.fencingToken(), lease)
        val element = enclosing?.plus(listOf(fence)) ?: FenceElement(listOf(fence))
        // In the Reactor context too: a locked Mono or suspend function awaited inside re-enters the lock.
        val reactor = coroutineContext[ReactorContext]?.context ?: Context.empty()
        val carried = ReactorContext(reactor.put(FencingContext.CONTEXT_KEY, element.fences))
        return withContext(element + carried) { block(lease) }
    } finally {
        // Also when cancelled: the lock must go back to the store.
        withContext(NonCancellable) { lease.releaseAsync().await() }
    }
}

private fun LockClient.normalised(request: LockRequest): String =
    ResourceName.of(request.resource(), settings().maxResourceLength()).value()

/** The same request under the enclosing holder's request id: the client adds a hold to its lock. */
private fun reentering(request: LockRequest, outer: LockLease): LockRequest {
    val builder = LockRequest.builder(request.resource())
        .requestId(outer.requestId())
        .mode(request.mode())
        .permits(request.permits())
        .poll(request.poll())
    request.lockName()?.let { builder.lockName(it) }
    request.waitTimeout()?.let { builder.waitTimeout(it) }
    request.leaseTtl()?.let { builder.leaseTtl(it) }
    return builder.build()
}

/**
 * Awaits the lease; cancelling the coroutine cancels the attempt, and a lease granted while the
 * cancellation arrived is released instead of lost.
 */
private suspend fun CompletableFuture<LockLease>.awaitLease(): LockLease =
    suspendCancellableCoroutine { continuation ->
        whenComplete { lease, failure ->
            if (failure != null) {
                continuation.resumeWithException(unwrap(failure))
            } else {
                continuation.resume(lease) { _, granted, _ -> granted.releaseAsync() }
            }
        }
        continuation.invokeOnCancellation { cancel(false) }
    }

private fun unwrap(failure: Throwable): Throwable {
    var cause = failure
    while ((cause is CompletionException || cause is ExecutionException) && cause.cause != null) {
        cause = cause.cause!!
    }
    return cause
}
