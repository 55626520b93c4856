package dev.fencelock.kotlin.docs

import dev.fencelock.FencingContext
import dev.fencelock.LockClient
import dev.fencelock.kotlin.lockingContext
import dev.fencelock.memory.InMemoryLockBackend
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.CopyOnWriteArrayList
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.springframework.beans.factory.getBean

/**
 * The ```kotlin blocks of the documentation appear, ignoring whitespace, in this module's test
 * sources, which the build compiles; the snippets behave as the text says.
 */
class KotlinSnippetsTest {

    private val root: Path = Path.of("").toAbsolutePath().parent

    @Test
    fun everyKotlinSnippetIsPartOfACompiledSource() {
        val sources = Files.walk(Path.of("src/test/kotlin")).use { paths ->
            paths.filter { it.toString().endsWith(".kt") }.map { normalised(Files.readString(it)) }.toList()
        }
        val documents = listOf(root.resolve("README.md")) +
            Files.list(root.resolve("docs")).use { it.filter { p -> p.toString().endsWith(".md") }.toList() }
        val snippets = documents.flatMap { document ->
            BLOCK.findAll(Files.readString(document)).map { document.fileName.toString() to it.groupValues[1] }
        }
        assertThat(snippets).isNotEmpty()
        val missing = snippets.filter { (_, code) ->
            val body = normalised(code.lines().filterNot { it.startsWith("import ") }.joinToString("\n"))
            sources.none { it.contains(body) }
        }
        assertThat(missing).`as`("kotlin snippets that no source of lock-kotlin's tests contains").isEmpty()
    }

    @Test
    fun reserveShouldWriteOnAnIoThreadWithTheLocksFence() {
        val seen = CopyOnWriteArrayList<String>()
        val repository = object : StockRepository {
            override fun decrement(sku: String) {
                seen.add(FencingContext.current().map { it.resource() }.orElse("none"))
            }

            override fun recount(): Int = if (FencingContext.current().isPresent) 1 else 0
        }
        val client = { LockClient.builder(InMemoryLockBackend()).build() }
        lockingContext(client).use { context ->
            context.registerBean(StockService::class.java, repository)
            val service = context.getBean<StockService>()
            val token = runBlocking { service.reserve("apple") }
            assertThat(token).isPositive()
            assertThat(seen).containsExactly("stock:apple")

            val audit = StockAudit(context.getBean<LockClient>(), repository)
            assertThat(runBlocking { audit.recount() }).isEqualTo(1)
        }
    }

    private companion object {
        val BLOCK = Regex("^```kotlin\\n(.*?)^```", setOf(RegexOption.MULTILINE, RegexOption.DOT_MATCHES_ALL))

        fun normalised(text: String) = text.replace(Regex("\\s+"), " ").trim()
    }
}
