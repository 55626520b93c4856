package dev.fencelock.kotlin

import dev.fencelock.FencingContext
import dev.fencelock.LockAcquisitionTimeoutException
import dev.fencelock.LockClient
import dev.fencelock.LockLostException
import dev.fencelock.LockRequest
import dev.fencelock.ResourceName
import dev.fencelock.annotation.DistributedLock
import dev.fencelock.annotation.LockNotAcquiredPolicy
import dev.fencelock.test.etcd.EtcdClusterExtension
import java.util.concurrent.CopyOnWriteArrayList
import kotlin.coroutines.coroutineContext
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.future.await
import kotlinx.coroutines.reactor.ReactorContext
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.context.support.GenericApplicationContext

/** `@DistributedLock` on Kotlin suspend functions, on a real etcd member. */
class SuspendDistributedLockEtcdTests {

    companion object {
        @JvmField @RegisterExtension val etcd: EtcdClusterExtension = EtcdClusterExtension.members(1)

        /** Bounds each test's waiting: well above the 10 s a released lock may take to be granted. */
        private const val VERIFY_MILLIS = 30_000L
    }

    private lateinit var client: LockClient

    private lateinit var context: GenericApplicationContext

    private lateinit var service: SuspendingService

    @BeforeEach
    fun start() {
        context = lockingContext(etcd.endpoints(), SuspendingService::class.java, OuterService::class.java)
        client = context.getBean(LockClient::class.java)
        service = context.getBean(SuspendingService::class.java)
        SuspendingService.inside.set(0)
        SuspendingService.maxInside.set(0)
        SuspendingService.tokens.clear()
    }

    @AfterEach
    fun stop() {
        context.close()
    }

    @Test
    fun concurrentCallersOfOneKeyShouldRunOneAtATimeWithGrowingTokens() = verify {
        val calls = 16
        val returned = (1..calls).map { async(Dispatchers.Default) { service.serialized("counter") } }.awaitAll()

        assertThat(SuspendingService.maxInside).hasValue(1)
        // Appended while held: one at a time, each holder's token above the previous one's.
        assertThat(SuspendingService.tokens).hasSize(calls).isSorted.doesNotHaveDuplicates()
        assertThat(returned).containsExactlyInAnyOrderElementsOf(SuspendingService.tokens)
        assertThat(client.heldCount()).isZero()
    }

    @Test
    fun fenceShouldBeInTheCoroutineContextAndInFencingContextOnAnIoThread() = verify {
        val seen = service.fences("ctx")

        assertThat(seen.inContext!!.resource()).isEqualTo("suspend:ctx")
        assertThat(seen.inContext.token()).isPositive()
        assertThat(seen.inContext.lease()).isNotNull()
        assertThat(seen.onIoThread).isEqualTo(seen.inContext)
        assertThat(seen.ioThread).isNotEqualTo(seen.callerThread)
        assertThat(seen.afterIo).isEqualTo(seen.inContext)
        assertThat(seen.inReactorContext).isEqualTo(seen.inContext)
        assertThat(FencingContext.current()).isEmpty()
        assertThat(currentFence()).isNull()
    }

    @Test
    fun cancellingTheCoroutineShouldReleaseTheLock() = verify {
        val inside = CompletableDeferred<Unit>()
        val cancelled = AtomicBoolean()
        val holder = launch(Dispatchers.Default) { service.hang("cancel", inside, cancelled) }
        inside.await()

        holder.cancelAndJoin()

        // Waits up to 10 s while the lease lives 30 s: only the release can let this call in.
        assertThat(service.waitingUpTo10s("cancel")).isPositive()
        // The caller's join does not wait for the function's coroutine; the release does.
        assertThat(cancelled).isTrue()
    }

    @Test
    fun aCancelledFunctionShouldKeepItsLockUntilItsCleanupHasRun() = verify {
        val inside = CompletableDeferred<Unit>()
        val cleanedUp = AtomicBoolean()
        val holder = launch(Dispatchers.Default) { service.hangThenCleanUp("cleanup", inside, cleanedUp) }
        inside.await()

        holder.cancelAndJoin()

        // The cleanup takes 300 ms after the cancellation: the next holder must come after it.
        assertThat(service.cleanedUpWhenEntered("cleanup", cleanedUp)).isTrue()
    }

    @Test
    fun failingFunctionShouldReleaseTheLockAndKeepItsError() = verify {
        val failure = runCatching { service.failing("error") }.exceptionOrNull()
        assertThat(failure).isInstanceOf(IllegalStateException::class.java).hasMessage("out of stock")

        assertThat(service.waitingUpTo10s("error")).isPositive()
    }

    @Test
    fun busyLockShouldFailAfterTheWaitTimeoutWithoutRunningTheFunction() = verify {
        client.acquire(LockRequest.of("suspend:busy")).use {
            val failure = runCatching { service.immediately("busy") }.exceptionOrNull()
            assertThat(failure).isInstanceOf(LockAcquisitionTimeoutException::class.java)
        }
        assertThat(SuspendingService.tokens).isEmpty()
        assertThat(service.immediately("busy")).isPositive()
    }

    @Test
    fun busyLockWithSkipShouldReturnNullWithoutRunningTheFunction() = verify {
        client.acquire(LockRequest.of("suspend:skip")).use {
            assertThat(service.skipping("skip")).isNull()
        }
        assertThat(SuspendingService.tokens).isEmpty()
        assertThat(service.skipping("skip")).isEqualTo("ran")
    }

    @Test
    fun lostLockShouldCancelTheCoroutineAndFailWithLockLostException() = verify {
        val inside = CompletableDeferred<Unit>()
        val cancelled = AtomicBoolean()
        val call = async(Dispatchers.Default) { runCatching { service.hang("lost", inside, cancelled) } }
        inside.await()

        // Another instance on the same etcd, as an operator's force-release through the endpoint.
        val released = etcdLockClient(etcd.endpoints()).use { operator ->
            operator.administration().orElseThrow().forceRelease(ResourceName.of("suspend:lost", 255)).await()
        }
        assertThat(released).isPresent()

        assertThat(call.await().exceptionOrNull())
            .isInstanceOf(LockLostException::class.java)
            .hasMessageContaining("'suspend:lost'")
            .hasMessageContaining("SuspendingService.hang(")
        assertThat(cancelled).isTrue()
        assertThat(client.heldCount()).isZero()
    }

    @Test
    fun nestedCallOfTheSameKeyShouldReenterWithTheSameToken() = verify {
        val outer = context.getBean(OuterService::class.java)
        val (outerToken, innerToken) = outer.outerAndInner("nested")
        assertThat(innerToken).isEqualTo(outerToken)
    }

    @Test
    fun withLockInsideALockedFunctionShouldReenterWithTheSameToken() = verify {
        val outer = context.getBean(OuterService::class.java)
        val (outerToken, innerToken) = outer.outerAndWithLock("nested-with-lock")
        assertThat(innerToken).isEqualTo(outerToken)
    }

    @Test
    fun lockedFunctionCalledInsideWithLockOfTheSameKeyShouldReenterWithTheSameToken() = verify {
        val (outer, inner) = client.withLock("suspend:inside-with-lock") { lease ->
            lease.fencingToken() to service.immediately("inside-with-lock")
        }
        assertThat(inner).isEqualTo(outer)
        assertThat(client.heldCount()).isZero()
    }

    @Test
    fun lockedFunctionCalledFromOutsideAnyLockShouldNotSeeAStaleFence() = verify {
        service.fences("first")
        assertThat(FencingContext.current()).isEmpty()
        assertThat(currentFences()).isEmpty()
    }

    private fun verify(test: suspend kotlinx.coroutines.CoroutineScope.() -> Unit) {
        runBlocking { withTimeout(VERIFY_MILLIS) { test() } }
    }

    data class Seen(
        val inContext: FencingContext.Fence?,
        val onIoThread: FencingContext.Fence?,
        val afterIo: FencingContext.Fence?,
        val inReactorContext: FencingContext.Fence?,
        val callerThread: String,
        val ioThread: String,
    )

    open class SuspendingService {

        companion object {
            // Static: the test sees the bean through its proxy, whose own fields are not the bean's.
            val inside = AtomicInteger()
            val maxInside = AtomicInteger()
            val tokens: MutableList<Long> = CopyOnWriteArrayList()
        }

        @DistributedLock(key = "'suspend:' + #name", waitTimeout = "30s")
        open suspend fun serialized(name: String): Long {
            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max)
            val token = currentFence()!!.token()
            tokens.add(token)
            // Suspends, so that an overlapping holder would have the chance to run.
            delay(2)
            inside.decrementAndGet()
            return token
        }

        @DistributedLock(key = "'suspend:' + #name")
        open suspend fun fences(name: String): Seen {
            val inContext = currentFence()
            val callerThread = Thread.currentThread().name
            var ioThread = ""
            val onIoThread = withContext(Dispatchers.IO) {
                ioThread = Thread.currentThread().name
                FencingContext.current().orElse(null)
            }
            // What an R2DBC call awaited here would carry to FencedConnectionFactory.
            val inReactorContext = coroutineContext[ReactorContext]
                ?.context
                ?.getOrDefault<List<FencingContext.Fence>>(FencingContext.CONTEXT_KEY, emptyList())
                ?.lastOrNull()
            return Seen(
                inContext,
                onIoThread,
                FencingContext.current().orElse(null),
                inReactorContext,
                callerThread,
                ioThread,
            )
        }

        @DistributedLock(key = "'suspend:' + #name")
        open suspend fun hang(name: String, inside: CompletableDeferred<Unit>, cancelled: AtomicBoolean) {
            try {
                inside.complete(Unit)
                awaitCancellation()
            } finally {
                cancelled.set(true)
            }
        }

        @DistributedLock(key = "'suspend:' + #name", waitTimeout = "10s")
        open suspend fun waitingUpTo10s(name: String): Long = currentFence()!!.token()

        @DistributedLock(key = "'suspend:' + #name")
        open suspend fun hangThenCleanUp(name: String, inside: CompletableDeferred<Unit>, cleanedUp: AtomicBoolean) {
            try {
                inside.complete(Unit)
                awaitCancellation()
            } finally {
                withContext(NonCancellable) {
                    delay(300)
                    cleanedUp.set(true)
                }
            }
        }

        @DistributedLock(key = "'suspend:' + #name", waitTimeout = "10s")
        open suspend fun cleanedUpWhenEntered(name: String, cleanedUp: AtomicBoolean): Boolean = cleanedUp.get()

        @DistributedLock(key = "'suspend:' + #name")
        open suspend fun failing(name: String): String {
            delay(1)
            throw IllegalStateException("out of stock")
        }

        @DistributedLock(key = "'suspend:' + #name", waitTimeout = "0s", onNotAcquired = LockNotAcquiredPolicy.SKIP)
        open suspend fun skipping(name: String): String? {
            tokens.add(currentFence()!!.token())
            return "ran"
        }

        @DistributedLock(key = "'suspend:' + #name", waitTimeout = "0s")
        open suspend fun immediately(name: String): Long {
            val token = currentFence()!!.token()
            tokens.add(token)
            return token
        }
    }

    open class OuterService(private val inner: SuspendingService, private val client: LockClient) {

        /** The token of this call's lock, then the token the nested call of the same key got. */
        @DistributedLock(key = "'suspend:' + #name")
        open suspend fun outerAndInner(name: String): Pair<Long, Long> {
            val outer = currentFence()!!.token()
            delay(1)
            return outer to inner.immediately(name)
        }

        /** The same with [withLock] inside. */
        @DistributedLock(key = "'suspend:' + #name")
        open suspend fun outerAndWithLock(name: String): Pair<Long, Long> {
            val outer = currentFence()!!.token()
            return outer to client.withLock("suspend:$name", waitTimeout = java.time.Duration.ZERO) { it.fencingToken() }
        }
    }
}
