package dev.fencelock.autoconfigure.fencing;

import dev.fencelock.jpa.FencingStatementInspector;
import org.hibernate.cfg.AvailableSettings;
import org.hibernate.resource.jdbc.spi.StatementInspector;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

/**
 * Auto-configuration of row-level fencing for JPA entities with a {@link
 * dev.fencelock.jpa.FencingToken} field: sets Hibernate's statement inspector to a {@link
 * FencingStatementInspector}, which makes their updates and deletes conditional on the current
 * token. An inspector the application configured itself
 * ({@code spring.jpa.properties.hibernate.session_factory.statement_inspector}, e.g. one that
 * adds tracing comments) keeps working: it runs first, then the statement is fenced.
 *
 * <p>Not switched off by {@code fencelock.fencing.enabled}: an entity opts in through its own
 * annotation, and Hibernate refuses to start when such an entity could not be fenced.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration")
@ConditionalOnClass({HibernatePropertiesCustomizer.class, StatementInspector.class, FencingStatementInspector.class})
@ConditionalOnProperty(prefix = "fencelock", name = "enabled", matchIfMissing = true)
public final class FenceLockJpaFencingAutoConfiguration {

    @Bean
    HibernatePropertiesCustomizer fencingStatementInspectorCustomizer(ResourceLoader resourceLoader) {
        ClassLoader classLoader = resourceLoader.getClassLoader();
        return (properties) -> properties.compute(
                AvailableSettings.STATEMENT_INSPECTOR,
                (key, configured) -> (configured instanceof FencingStatementInspector)
                        ? configured
                        : new FencingStatementInspector(applicationInspector(configured, classLoader)));
    }

    /** The inspector the application configured, as Hibernate accepts it: an instance, a class or a class name. */
    private static @Nullable StatementInspector applicationInspector(
            @Nullable Object configured, @Nullable ClassLoader classLoader) {
        if (configured == null || configured instanceof StatementInspector) {
            return (StatementInspector) configured;
        }
        Class<?> type = (configured instanceof Class<?> given)
                ? given
                : ClassUtils.resolveClassName(configured.toString().trim(), classLoader);
        if (!StatementInspector.class.isAssignableFrom(type)) {
            throw new IllegalStateException(AvailableSettings.STATEMENT_INSPECTOR + " is " + type.getName()
                    + ", which is not a " + StatementInspector.class.getName());
        }
        return (StatementInspector) BeanUtils.instantiateClass(type);
    }
}
