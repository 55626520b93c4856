package dev.fencelock.autoconfigure.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.r2dbc.FencedConnectionFactory;
import io.r2dbc.spi.ConnectionFactory;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class FenceLockR2dbcFencingAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockFencingAutoConfiguration.class,
                    FenceLockR2dbcFencingAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory");

    private final ConnectionFactory pool = mock(ConnectionFactory.class);

    @Test
    void runShouldWrapEachConnectionFactoryWithTheFenceGuardAndKeepThePoolReachable() {
        this.runner
                .withBean("connectionFactory", ConnectionFactory.class, () -> this.pool)
                .run((context) -> {
                    ConnectionFactory factory = context.getBean(ConnectionFactory.class);
                    assertThat(factory).isInstanceOf(FencedConnectionFactory.class);
                    FencedConnectionFactory fenced = (FencedConnectionFactory) factory;
                    assertThat(fenced.unwrap()).isSameAs(this.pool);
                    assertThat(fenced.guard()).isSameAs(context.getBean(FenceGuard.class));
                });
    }

    @Test
    void runWithAlreadyFencedConnectionFactoryShouldNotWrapItAgain() {
        FencedConnectionFactory fenced = new FencedConnectionFactory(this.pool, FenceGuard.create());
        this.runner
                .withBean("connectionFactory", ConnectionFactory.class, () -> fenced)
                .run((context) ->
                        assertThat(context.getBean(ConnectionFactory.class)).isSameAs(fenced));
    }

    @Test
    void runWhenR2dbcFencingDisabledShouldNotWrapButKeepTheGuard() {
        this.runner
                .withBean("connectionFactory", ConnectionFactory.class, () -> this.pool)
                .withPropertyValues("fencelock.fencing.r2dbc.enabled=false")
                .run((context) -> {
                    assertThat(context.getBean(ConnectionFactory.class)).isSameAs(this.pool);
                    assertThat(context).doesNotHaveBean(FencedConnectionFactoryPostProcessor.class);
                    assertThat(context).hasSingleBean(FenceGuard.class);
                });
    }

    @Test
    void runWhenFencingDisabledShouldNotWrapConnectionFactory() {
        this.runner
                .withBean("connectionFactory", ConnectionFactory.class, () -> this.pool)
                .withPropertyValues("fencelock.fencing.enabled=false")
                .run((context) ->
                        assertThat(context.getBean(ConnectionFactory.class)).isSameAs(this.pool));
    }

    @Test
    void runWithoutConnectionFactoryBeanShouldBackOff() {
        this.runner.run((context) -> assertThat(context).doesNotHaveBean(FencedConnectionFactoryPostProcessor.class));
    }

    @Test
    void runWithoutLockR2dbcShouldBackOff() {
        this.runner
                .withClassLoader(new FilteredClassLoader(FencedConnectionFactory.class))
                .withBean("connectionFactory", ConnectionFactory.class, () -> this.pool)
                .run((context) -> {
                    assertThat(context).doesNotHaveBean(FencedConnectionFactoryPostProcessor.class);
                    assertThat(context.getBean(ConnectionFactory.class)).isSameAs(this.pool);
                });
    }

    @Test
    void runWithoutR2dbcShouldBackOff() {
        this.runner
                .withClassLoader(new FilteredClassLoader(ConnectionFactory.class))
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(FencedConnectionFactoryPostProcessor.class);
                });
    }
}
