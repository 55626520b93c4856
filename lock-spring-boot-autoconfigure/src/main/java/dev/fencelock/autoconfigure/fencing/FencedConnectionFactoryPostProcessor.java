package dev.fencelock.autoconfigure.fencing;

import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.autoconfigure.FenceLockProperties;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.r2dbc.FencedConnectionFactory;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Wrapped;
import java.util.function.Consumer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Puts every R2DBC {@link ConnectionFactory} bean behind a {@link FencedConnectionFactory} that
 * presents fences with the JDBC guard's fence table and protected tables, and reports its refusals
 * (counted and audited), once: a factory that already is, or wraps, one is left alone.
 *
 * <p>The bean's type becomes {@code ConnectionFactory}: reach the pool behind it through {@link
 * Wrapped#unwrap()}. The guard is resolved when the first factory is wrapped, so that it can be an
 * ordinary bean.
 */
final class FencedConnectionFactoryPostProcessor implements BeanPostProcessor {

    private final ObjectProvider<FenceGuard> guard;

    private final ObjectProvider<FenceLockProperties> properties;

    private final Consumer<FencingTokenRejectedException> rejections;

    FencedConnectionFactoryPostProcessor(
            ObjectProvider<FenceGuard> guard,
            ObjectProvider<FenceLockProperties> properties,
            Consumer<FencingTokenRejectedException> rejections) {
        this.guard = guard;
        this.properties = properties;
        this.rejections = rejections;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof ConnectionFactory factory && !isFenced(factory)) {
            FenceLockProperties properties = this.properties.getIfAvailable();
            return new FencedConnectionFactory(
                    factory,
                    this.guard.getObject(),
                    (properties != null) ? properties.getFencing().getJdbc().getDialect() : null,
                    this.rejections);
        }
        return bean;
    }

    static boolean isFenced(ConnectionFactory factory) {
        Object current = factory;
        // Bounded: a wrapper chain longer than this is not one to look through.
        for (int depth = 0; depth < 16 && current != null; depth++) {
            if (current instanceof FencedConnectionFactory) {
                return true;
            }
            current = (current instanceof Wrapped<?> wrapped) ? wrapped.unwrap() : null;
        }
        return false;
    }
}
