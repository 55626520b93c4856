package dev.fencelock.kotlin

import dev.fencelock.FencingContext
import dev.fencelock.LockClient
import dev.fencelock.LockRequest
import dev.fencelock.test.etcd.EtcdClusterExtension
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension

/**
 * [withLock] on a real etcd member. Leases live 30 s; where a test shows a release, the next
 * caller waits at most 10 s, so only the release can let it in.
 */
class WithLockEtcdTests {

    companion object {
        @JvmField @RegisterExtension val etcd: EtcdClusterExtension = EtcdClusterExtension.members(1)

        private const val VERIFY_MILLIS = 30_000L

        private val TEN_SECONDS: Duration = Duration.ofSeconds(10)
    }

    private lateinit var client: LockClient

    @BeforeEach
    fun start() {
        client = etcdLockClient(etcd.endpoints())
    }

    @AfterEach
    fun stop() {
        client.close()
    }

    @Test
    fun concurrentBlocksOfOneResourceShouldRunOneAtATimeWithGrowingTokens() = verify {
        val inside = AtomicInteger()
        val maxInside = AtomicInteger()
        val tokens = CopyOnWriteArrayList<Long>()
        val calls = 16
        (1..calls)
            .map {
                async(Dispatchers.Default) {
                    client.withLock("with-lock:counter", waitTimeout = Duration.ofSeconds(30)) { lease ->
                        maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max)
                        tokens.add(lease.fencingToken())
                        // Suspends, so that an overlapping holder would have the chance to run.
                        delay(2)
                        inside.decrementAndGet()
                    }
                }
            }
            .awaitAll()

        assertThat(maxInside).hasValue(1)
        assertThat(tokens).hasSize(calls).isSorted.doesNotHaveDuplicates()
        assertThat(client.heldCount()).isZero()
    }

    @Test
    fun fenceShouldBeInTheCoroutineContextAndInFencingContextOnAnIoThread() = verify {
        val callerThread = Thread.currentThread()
        client.withLock("with-lock:ctx") { lease ->
            val fence = currentFence()!!
            assertThat(fence.resource()).isEqualTo("with-lock:ctx")
            assertThat(fence.token()).isEqualTo(lease.fencingToken())
            val onIo = withContext(Dispatchers.IO) {
                assertThat(Thread.currentThread()).isNotSameAs(callerThread)
                FencingContext.current().orElse(null)
            }
            assertThat(onIo).isEqualTo(fence)
            assertThat(FencingContext.current()).contains(fence)
        }
        assertThat(currentFence()).isNull()
        assertThat(FencingContext.current()).isEmpty()
    }

    @Test
    fun cancellingTheHolderShouldReleaseTheLock() = verify {
        val inside = CompletableDeferred<Unit>()
        val cancelled = AtomicBoolean()
        val holder = launch(Dispatchers.Default) {
            client.withLock("with-lock:cancel") {
                try {
                    inside.complete(Unit)
                    awaitCancellation()
                } finally {
                    cancelled.set(true)
                }
            }
        }
        inside.await()

        holder.cancelAndJoin()

        assertThat(cancelled).isTrue()
        assertThat(client.withLock("with-lock:cancel", waitTimeout = TEN_SECONDS) { it.fencingToken() }).isPositive()
    }

    @Test
    fun cancellingAWaiterShouldLeaveNoLockBehind() = verify {
        val ran = AtomicBoolean()
        client.acquire(LockRequest.of("with-lock:queued")).use {
            val waiter = launch(Dispatchers.Default) {
                client.withLock("with-lock:queued", waitTimeout = Duration.ofSeconds(30)) { ran.set(true) }
            }
            waiter.cancelAndJoin()
        }

        assertThat(client.withLock("with-lock:queued", waitTimeout = TEN_SECONDS) { it.fencingToken() }).isPositive()
        assertThat(ran).isFalse()
    }

    @Test
    fun failingBlockShouldReleaseTheLockAndKeepItsError() = verify {
        val failure = runCatching {
            client.withLock("with-lock:error") {
                delay(1)
                throw IllegalStateException("out of stock")
            }
        }.exceptionOrNull()
        assertThat(failure).isInstanceOf(IllegalStateException::class.java).hasMessage("out of stock")

        assertThat(client.withLock("with-lock:error", waitTimeout = TEN_SECONDS) { it.fencingToken() }).isPositive()
    }

    @Test
    fun nestedBlockOfTheSameResourceShouldReenterWithTheSameToken() = verify {
        val (outer, inner) = client.withLock("with-lock:nested") { outer ->
            val inner = client.withLock("with-lock:nested", waitTimeout = Duration.ZERO) { inner ->
                assertThat(currentFences()).hasSize(2)
                inner.fencingToken()
            }
            // The nested block's release gives back its hold only: the outer block still holds the lock.
            assertThat(outer.isValid).isTrue()
            assertThat(client.tryAcquire("with-lock:nested")).isEmpty()
            outer.fencingToken() to inner
        }
        assertThat(inner).isEqualTo(outer)
        assertThat(client.heldCount()).isZero()
    }

    private fun verify(test: suspend CoroutineScope.() -> Unit) {
        runBlocking { withTimeout(VERIFY_MILLIS) { test() } }
    }
}
