package dev.fencelock.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.fencelock.FencingContext;
import dev.fencelock.LockClient;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.memory.InMemoryLockBackend;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Reactor is optional: an application without it locks blocking and {@code CompletableFuture}
 * methods as usual. Run by a surefire execution of its own with {@code reactor-core} taken off the
 * class path ({@code without-reactor} in this module's pom), so a class that needs Reactor to load
 * fails here.
 */
class WithoutReactorTests {

    @Test
    void blockingAndFutureMethodsAreLockedWithoutReactorOnTheClassPath() throws Exception {
        assertThatExceptionOfType(ClassNotFoundException.class)
                .as("this test runs without reactor-core")
                .isThrownBy(() -> Class.forName("reactor.core.publisher.Mono"));
        try (AnnotationConfigApplicationContext context =
                new AnnotationConfigApplicationContext(LockConfiguration.class)) {
            Stock stock = context.getBean(Stock.class);
            long first = stock.reserve("apple");
            long second = stock.reserve("apple");
            assertThat(second).isGreaterThan(first);
            assertThat(stock.reserveLater("pear").get(30, TimeUnit.SECONDS)).isPositive();
            assertThat(context.getBean(LockClient.class).heldCount()).isZero();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDistributedLocks
    static class LockConfiguration {

        @Bean(destroyMethod = "close")
        LockClient lockClient() {
            return LockClient.builder(new InMemoryLockBackend())
                    .defaultWaitTimeout(Duration.ofSeconds(30))
                    .build();
        }

        @Bean
        Stock stock() {
            return new Stock();
        }
    }

    static class Stock {

        @DistributedLock(key = "'stock:' + #sku")
        public long reserve(String sku) {
            return FencingContext.current().orElseThrow().token();
        }

        @DistributedLock(key = "'stock:' + #sku")
        public CompletableFuture<Long> reserveLater(String sku) {
            return CompletableFuture.completedFuture(
                    FencingContext.current().orElseThrow().token());
        }
    }
}
