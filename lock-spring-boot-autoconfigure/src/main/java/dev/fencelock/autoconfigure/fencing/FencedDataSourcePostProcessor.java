package dev.fencelock.autoconfigure.fencing;

import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.jdbc.FencedDataSource;
import java.sql.SQLException;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Puts every {@link DataSource} bean behind a {@link FencedDataSource} that reports its refusals
 * (counted and audited), once: a data source that already is, or wraps, a {@code
 * FencedDataSource} is left alone. {@code unwrap} still reaches the pool behind it.
 *
 * <p>The bean's type becomes {@code DataSource}: inject the pool type through {@code
 * dataSource.unwrap(HikariDataSource.class)}, or define the pool as a non-{@code DataSource}-typed
 * bean. The guard is resolved when the first data source is wrapped, not when this post-processor
 * is created, so that it can be an ordinary bean.
 */
final class FencedDataSourcePostProcessor implements BeanPostProcessor {

    private final ObjectProvider<FenceGuard> guard;

    private final Consumer<FencingTokenRejectedException> rejections;

    FencedDataSourcePostProcessor(
            ObjectProvider<FenceGuard> guard, Consumer<FencingTokenRejectedException> rejections) {
        this.guard = guard;
        this.rejections = rejections;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof DataSource dataSource && !isFenced(dataSource)) {
            return new FencedDataSource(dataSource, this.guard.getObject(), this.rejections);
        }
        return bean;
    }

    static boolean isFenced(DataSource dataSource) {
        if (dataSource instanceof FencedDataSource) {
            return true;
        }
        try {
            return dataSource.isWrapperFor(FencedDataSource.class);
        } catch (SQLException | RuntimeException ex) {
            // A data source that cannot say is not one of ours.
            return false;
        }
    }
}
