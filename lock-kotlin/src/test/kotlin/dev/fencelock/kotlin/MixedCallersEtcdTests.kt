package dev.fencelock.kotlin

import dev.fencelock.FencingContext
import dev.fencelock.annotation.DistributedLock
import dev.fencelock.test.etcd.EtcdClusterExtension
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.reactor.awaitSingle
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import reactor.core.publisher.Mono

/**
 * Blocking, reactive and coroutine callers of one key at once: the three paths of the
 * `@DistributedLock` advice take the same lock in etcd, so they exclude each other.
 */
class MixedCallersEtcdTests {

    companion object {
        @JvmField @RegisterExtension val etcd: EtcdClusterExtension = EtcdClusterExtension.members(1)
    }

    @Test
    fun blockingReactiveAndCoroutineCallersOfOneKeyShouldNeverOverlap() {
        lockingContext(etcd.endpoints(), MixedService::class.java).use { context ->
            val service = context.getBean(MixedService::class.java)
            val each = 6
            val blockingThreads = Executors.newFixedThreadPool(3)
            try {
                runBlocking {
                    withTimeout(60_000) {
                        val blocking = blockingThreads.asCoroutineDispatcher()
                        val calls = (1..each).flatMap {
                            listOf(
                                async(blocking) { service.blocking("shared") },
                                async(Dispatchers.Default) { service.reactive("shared").awaitSingle() },
                                async(Dispatchers.Default) { service.coroutine("shared") },
                            )
                        }
                        calls.awaitAll()
                    }
                }
            } finally {
                blockingThreads.shutdownNow()
            }

            assertThat(MixedService.maxInside).hasValue(1)
            assertThat(MixedService.entries).hasSize(3 * each)
            assertThat(MixedService.entries.map { it.second }).containsOnly("blocking", "reactive", "coroutine")
            // Appended while held: each holder's token above the previous one's, whatever its kind.
            assertThat(MixedService.entries.map { it.first }).isSorted.doesNotHaveDuplicates()
        }
    }

    open class MixedService {

        companion object {
            // Static: the test sees the bean through its proxy, whose own fields are not the bean's.
            val inside = AtomicInteger()
            val maxInside = AtomicInteger()
            val entries: MutableList<Pair<Long, String>> = CopyOnWriteArrayList()
        }

        private fun enter(token: Long, kind: String) {
            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max)
            entries.add(token to kind)
        }

        @DistributedLock(key = "'mixed:' + #name", waitTimeout = "30s")
        open fun blocking(name: String) {
            enter(FencingContext.current().orElseThrow().token(), "blocking")
            // Holds the lock for a moment (20 ms, against an etcd round trip of a few ms to hand it over),
            // so that an overlapping holder would be seen inside.
            Thread.sleep(20)
            inside.decrementAndGet()
        }

        @DistributedLock(key = "'mixed:' + #name", waitTimeout = "30s")
        open fun reactive(name: String): Mono<String> =
            Mono.deferContextual { context ->
                    val fences = context.get<List<FencingContext.Fence>>(FencingContext.CONTEXT_KEY)
                    enter(fences.last().token(), "reactive")
                    Mono.just(name)
                }
                .delayElement(Duration.ofMillis(20))
                .doOnNext { inside.decrementAndGet() }

        @DistributedLock(key = "'mixed:' + #name", waitTimeout = "30s")
        open suspend fun coroutine(name: String) {
            enter(currentFence()!!.token(), "coroutine")
            delay(20)
            inside.decrementAndGet()
        }
    }
}
