package dev.fencelock.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.LockClient;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.support.ContextPropagatingTaskDecorator;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * A locked method whose work continues on an {@code @Async} executor: with Spring's {@code
 * ContextPropagatingTaskDecorator} on that executor, the continuation runs under the lock's fence,
 * so its writes are fenced too; without it, it runs with none.
 */
class DistributedLockAsyncFencingTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(FenceLockEtcdAutoConfiguration.class, FenceLockAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory")
            .withUserConfiguration(AsyncConfiguration.class);

    @Test
    void anAsyncContinuationOnAPropagatingExecutorRunsUnderTheLocksFence() {
        this.runner
                .withBean("taskExecutor", ThreadPoolTaskExecutor.class, () -> executor(true))
                .run((context) -> {
                    Jobs jobs = context.getBean(Jobs.class);
                    Optional<Fence> seen = jobs.run(42).get(10, TimeUnit.SECONDS);

                    assertThat(seen).hasValueSatisfying((fence) -> {
                        assertThat(fence.resource()).isEqualTo("job:42");
                        assertThat(fence.token()).isPositive();
                    });
                    // Held until the future completed, released after.
                    assertThat(context.getBean(LockClient.class).heldCount()).isZero();
                });
    }

    @Test
    void anAsyncContinuationOnAPlainExecutorRunsWithoutAFence() {
        this.runner
                .withBean("taskExecutor", ThreadPoolTaskExecutor.class, () -> executor(false))
                .run((context) -> {
                    assertThat(context.getBean(Jobs.class).run(43).get(10, TimeUnit.SECONDS))
                            .isEmpty();
                });
    }

    private static ThreadPoolTaskExecutor executor(boolean propagating) {
        ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
        executor.setCorePoolSize(1);
        if (propagating) {
            executor.setTaskDecorator(new ContextPropagatingTaskDecorator());
        }
        executor.initialize();
        return executor;
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAsync
    static class AsyncConfiguration {

        @Bean
        Worker worker() {
            return new Worker();
        }

        @Bean
        Jobs jobs(Worker worker) {
            return new Jobs(worker);
        }
    }

    static class Worker {

        @Async
        public CompletableFuture<Optional<Fence>> currentFence() {
            return CompletableFuture.completedFuture(FencingContext.current());
        }
    }

    static class Jobs {

        private final Worker worker;

        Jobs(Worker worker) {
            this.worker = worker;
        }

        @DistributedLock(key = "'job:' + #id")
        public CompletableFuture<Optional<Fence>> run(long id) {
            return this.worker.currentFence();
        }
    }
}
