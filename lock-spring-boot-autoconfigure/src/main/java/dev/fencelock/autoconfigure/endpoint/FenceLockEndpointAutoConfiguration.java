package dev.fencelock.autoconfigure.endpoint;

import dev.fencelock.LockClient;
import dev.fencelock.actuate.FenceLockEndpoint;
import dev.fencelock.audit.LockAuditLog;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.FenceLockProperties;
import dev.fencelock.autoconfigure.audit.FenceLockAuditAutoConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code fencelock} actuator endpoint. Like every endpoint it is only
 * created once the application exposes it ({@code management.endpoints.web.exposure.include}).
 *
 * <p>An operation waits for the store at most twice {@code fencelock.etcd.request-timeout}: a
 * force-release is a read of the queue followed by a guarded delete.
 */
@AutoConfiguration(after = {FenceLockAutoConfiguration.class, FenceLockAuditAutoConfiguration.class})
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(LockClient.class)
public final class FenceLockEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    FenceLockEndpoint fenceLockEndpoint(
            LockClient client, ObjectProvider<LockAuditLog> audit, FenceLockProperties properties) {
        return new FenceLockEndpoint(
                client,
                audit.getIfAvailable(),
                properties.getEtcd().getRequestTimeout().multipliedBy(2));
    }
}
