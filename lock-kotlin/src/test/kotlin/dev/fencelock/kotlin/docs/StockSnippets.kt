package dev.fencelock.kotlin.docs

import dev.fencelock.LockClient
import dev.fencelock.annotation.DistributedLock
import dev.fencelock.kotlin.currentFence
import dev.fencelock.kotlin.withLock
import java.time.Duration
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext

/** The Kotlin snippets of docs/spring-boot.md, compiled and run by [KotlinSnippetsTest]. */
interface StockRepository {
    /** A blocking JDBC write, fenced by lock-jdbc's `FencedDataSource`. */
    fun decrement(sku: String)

    fun recount(): Int
}

open class StockService(private val stock: StockRepository) {

    @DistributedLock(key = "'stock:' + #sku")
    open suspend fun reserve(sku: String): Long {
        val fence = currentFence()!! // the lock's fence, in the coroutine context
        withContext(Dispatchers.IO) {
            stock.decrement(sku) // on an IO thread, FencingContext has the fence
        }
        return fence.token()
    }
}

class StockAudit(private val locks: LockClient, private val stock: StockRepository) {

    suspend fun recount(): Int =
        locks.withLock("stock-audit", waitTimeout = Duration.ofSeconds(5)) {
            withContext(Dispatchers.IO) { stock.recount() }
        }
}
