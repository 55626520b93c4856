package dev.fencelock.autoconfigure.fencing;

import dev.fencelock.autoconfigure.FenceLockProperties;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.r2dbc.FencedConnectionFactory;
import io.r2dbc.spi.ConnectionFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of fenced R2DBC writes: every R2DBC {@link ConnectionFactory} bean becomes a
 * {@link FencedConnectionFactory}, so that inside a locked call each transaction presents the lock's
 * fencing token to the fence table and puts it in the session for the protected tables, with the
 * JDBC guard's settings ({@code fencelock.fencing.jdbc.*}). Refusals are counted and audited as the
 * JDBC guard's are. Off with {@code fencelock.fencing.r2dbc.enabled=false} (or with fencing).
 */
@AutoConfiguration(
        after = FenceLockFencingAutoConfiguration.class,
        afterName = "org.springframework.boot.r2dbc.autoconfigure.R2dbcAutoConfiguration")
@ConditionalOnClass({ConnectionFactory.class, FencedConnectionFactory.class})
@ConditionalOnBean({ConnectionFactory.class, FenceGuard.class})
@ConditionalOnProperty(prefix = "fencelock", name = "enabled", matchIfMissing = true)
@ConditionalOnProperty(prefix = "fencelock.fencing", name = "enabled", matchIfMissing = true)
@ConditionalOnProperty(prefix = "fencelock.fencing.r2dbc", name = "enabled", matchIfMissing = true)
public final class FenceLockR2dbcFencingAutoConfiguration {

    @Bean
    static FencedConnectionFactoryPostProcessor fencedConnectionFactoryPostProcessor(
            ObjectProvider<FenceGuard> guard, ObjectProvider<FenceLockProperties> properties, BeanFactory beanFactory) {
        return new FencedConnectionFactoryPostProcessor(guard, properties, new FencingRejections(beanFactory));
    }
}
