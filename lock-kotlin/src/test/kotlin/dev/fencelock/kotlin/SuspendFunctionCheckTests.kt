package dev.fencelock.kotlin

import dev.fencelock.LockClient
import dev.fencelock.annotation.DistributedLock
import dev.fencelock.interceptor.UnusableDistributedLockMethodsException
import dev.fencelock.memory.InMemoryLockBackend
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatExceptionOfType
import org.junit.jupiter.api.Test

/** The startup check of `@DistributedLock` suspend functions, with lock-kotlin on the class path. */
class SuspendFunctionCheckTests {

    private fun inMemory(): LockClient = LockClient.builder(InMemoryLockBackend()).build()

    @Test
    fun suspendFunctionShouldBeAcceptedAndLocked() {
        lockingContext(::inMemory, Accepted::class.java).use { context ->
            val service = context.getBean(Accepted::class.java)
            assertThat(runBlocking { service.reserve("apple") }).isEqualTo("stock:apple")
        }
    }

    @Test
    fun suspendFunctionReturningAFlowShouldStopStartup() {
        assertThatExceptionOfType(UnusableDistributedLockMethodsException::class.java)
            .isThrownBy { lockingContext(::inMemory, Streaming::class.java).close() }
            .withMessageContaining("Streaming.items(String, Continuation)")
            .withMessageContaining("returns a Kotlin Flow")
    }

    open class Accepted {
        @DistributedLock(key = "'stock:' + #sku")
        open suspend fun reserve(sku: String): String = currentFence()!!.resource()
    }

    open class Streaming {
        @DistributedLock(key = "'stock:' + #sku")
        open suspend fun items(sku: String): Flow<String> = flowOf(sku)
    }
}
