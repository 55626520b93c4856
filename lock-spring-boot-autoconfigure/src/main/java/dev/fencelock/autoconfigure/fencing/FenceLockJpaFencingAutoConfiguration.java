package dev.fencelock.autoconfigure.fencing;

import dev.fencelock.jpa.FencingStatementInspector;
import org.hibernate.cfg.AvailableSettings;
import org.hibernate.resource.jdbc.spi.StatementInspector;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of row-level fencing for JPA entities with a {@link
 * dev.fencelock.jpa.FencingToken} field: sets Hibernate's statement inspector to a {@link
 * FencingStatementInspector}, which makes their updates conditional on the current token.
 *
 * <p>Not switched off by {@code fencelock.fencing.enabled}: an entity opts in through its own
 * annotation, and Hibernate refuses to start when such an entity could not be fenced.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration")
@ConditionalOnClass({HibernatePropertiesCustomizer.class, StatementInspector.class})
@ConditionalOnProperty(prefix = "fencelock", name = "enabled", matchIfMissing = true)
public final class FenceLockJpaFencingAutoConfiguration {

    @Bean
    HibernatePropertiesCustomizer fencingStatementInspectorCustomizer() {
        // An inspector of the application's own wins; FencingTokenIntegrator then stops startup if an
        // entity declares @FencingToken, because its updates would not be fenced.
        return (properties) ->
                properties.putIfAbsent(AvailableSettings.STATEMENT_INSPECTOR, new FencingStatementInspector());
    }
}
