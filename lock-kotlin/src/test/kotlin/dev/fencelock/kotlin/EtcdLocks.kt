package dev.fencelock.kotlin

import dev.fencelock.LockClient
import dev.fencelock.etcd.EtcdLockBackend
import dev.fencelock.interceptor.EnableDistributedLocks
import java.time.Duration
import java.util.function.Supplier
import org.springframework.context.annotation.AnnotationConfigApplicationContext
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration

/**
 * A lock client on the test's etcd member whose leases live 30 s: where a test shows that a lock
 * was released, the next caller waits at most 10 s, so only the release, never the lease's expiry,
 * can let it in. A slow machine makes that caller wait longer, not pass wrongly.
 */
internal fun etcdLockClient(endpoints: List<String>): LockClient =
    LockClient.builder(EtcdLockBackend.builder().endpoints(endpoints).build())
        .defaultLeaseTtl(Duration.ofSeconds(30))
        .build()

/**
 * A Spring context without Boot: `@EnableDistributedLocks`, a client from [etcdLockClient] (which
 * the context closes), and [beans].
 */
internal fun lockingContext(endpoints: List<String>, vararg beans: Class<*>): AnnotationConfigApplicationContext =
    lockingContext({ etcdLockClient(endpoints) }, *beans)

/** A Spring context without Boot: `@EnableDistributedLocks`, the [client] (which it closes), and [beans]. */
internal fun lockingContext(client: () -> LockClient, vararg beans: Class<*>): AnnotationConfigApplicationContext {
    val context = AnnotationConfigApplicationContext()
    context.registerBean(LockClient::class.java, Supplier { client() })
    context.register(LockConfiguration::class.java, *beans)
    context.refresh()
    return context
}

@Configuration(proxyBeanMethods = false)
@EnableDistributedLocks
internal open class LockConfiguration
