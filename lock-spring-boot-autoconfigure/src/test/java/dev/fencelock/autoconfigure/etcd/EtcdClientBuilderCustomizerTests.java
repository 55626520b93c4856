package dev.fencelock.autoconfigure.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.etcd.EtcdLockBackend;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/** {@link EtcdClientBuilderCustomizer} beans: applied in order, after {@code fencelock.etcd.*}. */
class EtcdClientBuilderCustomizerTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(FenceLockEtcdAutoConfiguration.class, FenceLockAutoConfiguration.class))
            .withUserConfiguration(OrderedCustomizers.class);

    @Test
    void runWithCustomizersShouldApplyThemInOrderBeforeTheClientIsBuilt() {
        this.runner.run((context) -> {
            assertThat(context).hasSingleBean(EtcdLockBackend.class);
            assertThat(context.getBean(OrderedCustomizers.class).seen)
                    .containsExactly("first saw authority null", "second saw authority from-first");
        });
    }

    @Test
    void runWithTlsShouldApplyTheCustomizersAfterTheTlsProperties() {
        this.runner
                .withPropertyValues(
                        "fencelock.etcd.endpoints=https://127.0.0.2:2379",
                        "fencelock.etcd.tls.enabled=true",
                        "fencelock.etcd.tls.authority=etcd.example")
                .run((context) -> {
                    assertThat(context).hasSingleBean(EtcdLockBackend.class);
                    assertThat(context.getBean(OrderedCustomizers.class).seen)
                            .containsExactly("first saw authority etcd.example", "second saw authority from-first");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class OrderedCustomizers {

        final List<String> seen = new CopyOnWriteArrayList<>();

        // Declared in the opposite order to the one they must run in.
        @Bean
        @Order(2)
        EtcdClientBuilderCustomizer second() {
            return (builder) -> this.seen.add("second saw authority " + builder.authority());
        }

        @Bean
        @Order(1)
        EtcdClientBuilderCustomizer first() {
            return (builder) -> {
                this.seen.add("first saw authority " + builder.authority());
                builder.authority("from-first");
            };
        }
    }
}
