package dev.fencelock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.memory.InMemoryLockBackend;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/** {@link LockClientBuilderCustomizer} beans: applied in order, after {@code fencelock.*}. */
class LockClientBuilderCustomizerTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FenceLockAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory", "fencelock.lease-ttl=20s");

    @Test
    void runWithCustomizersShouldApplyThemInOrderAfterTheProperties() {
        this.runner.withUserConfiguration(OrderedCustomizers.class).run((context) -> {
            assertThat(context.getBean(OrderedCustomizers.class).calls).containsExactly("first", "second");
            // The second customizer overrides both the property and the first customizer.
            assertThat(context.getBean(LockClient.class).settings().defaultLeaseTtl())
                    .isEqualTo(Duration.ofSeconds(45));
            assertThat(context.getBean(LockClient.class).settings().maxWaitersPerResource())
                    .isEqualTo(3);
        });
    }

    @Test
    void runWithUserLockClientShouldNotCallTheCustomizers() {
        this.runner
                .withUserConfiguration(OrderedCustomizers.class)
                .withBean(
                        "userLockClient",
                        LockClient.class,
                        () -> LockClient.builder(new InMemoryLockBackend()).build())
                .run((context) -> assertThat(context.getBean(OrderedCustomizers.class).calls)
                        .isEmpty());
    }

    @Configuration(proxyBeanMethods = false)
    static class OrderedCustomizers {

        final List<String> calls = new CopyOnWriteArrayList<>();

        @Bean
        @Order(2)
        LockClientBuilderCustomizer second() {
            return (builder) -> {
                this.calls.add("second");
                builder.defaultLeaseTtl(Duration.ofSeconds(45));
            };
        }

        @Bean
        @Order(1)
        LockClientBuilderCustomizer first() {
            return (builder) -> {
                this.calls.add("first");
                builder.defaultLeaseTtl(Duration.ofSeconds(25)).maxWaitersPerResource(3);
            };
        }
    }
}
