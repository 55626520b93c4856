package dev.fencelock.autoconfigure.endpoint;

import dev.fencelock.LockClient;
import dev.fencelock.actuate.FenceLockEndpoint;
import dev.fencelock.actuate.FenceLockEndpointRuntimeHints;
import dev.fencelock.audit.LockAuditLog;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.FenceLockProperties;
import dev.fencelock.autoconfigure.audit.FenceLockAuditAutoConfiguration;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of the {@code fencelock} actuator endpoint. Like every endpoint it is only
 * created once the application exposes it ({@code management.endpoints.web.exposure.include}).
 *
 * <p>The endpoint is read-only by default ({@code defaultAccess = READ_ONLY}): force-release
 * needs {@code management.endpoint.fencelock.access=unrestricted}.
 *
 * <p>An operation waits for the store at most twice the backend's own bound: a force-release is a
 * read of the queue followed by a guarded delete. The bound is {@code fencelock.etcd.request-timeout}
 * on etcd, {@code fencelock.zookeeper.administration-session-timeout} on ZooKeeper (the
 * administration session may have to be opened first) and {@code fencelock.redis.request-timeout} on
 * Redis.
 */
@AutoConfiguration(after = {FenceLockAutoConfiguration.class, FenceLockAuditAutoConfiguration.class})
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(LockClient.class)
@ImportRuntimeHints(FenceLockEndpointRuntimeHints.class)
public final class FenceLockEndpointAutoConfiguration {

    /** The property that, set to {@code unrestricted}, permits force-release. */
    static final String ACCESS_PROPERTY = "management.endpoint.fencelock.access";

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    FenceLockEndpoint fenceLockEndpoint(
            LockClient client,
            ObjectProvider<LockAuditLog> audit,
            FenceLockProperties properties,
            Environment environment) {
        return new FenceLockEndpoint(
                client, audit.getIfAvailable(), storeTimeout(properties), isForceReleasePermitted(environment));
    }

    /** How long one endpoint operation may wait for the configured store. */
    static Duration storeTimeout(FenceLockProperties properties) {
        Duration bound = switch (properties.getBackend()) {
            case ZOOKEEPER -> properties.getZookeeper().getAdministrationSessionTimeout();
            case REDIS -> properties.getRedis().getRequestTimeout();
            case ETCD, IN_MEMORY -> properties.getEtcd().getRequestTimeout();
        };
        return bound.multipliedBy(2);
    }

    /**
     * Whether force-release was permitted for this endpoint by name. Boot also maps the DELETE when
     * only {@code management.endpoints.access.default=unrestricted} is set, a blanket switch meant
     * for endpoints whose writes are harmless; taking a lock away needs this endpoint's own setting.
     */
    static boolean isForceReleasePermitted(Environment environment) {
        return Binder.get(environment)
                .bind(ACCESS_PROPERTY, Access.class)
                .map((access) -> access == Access.UNRESTRICTED)
                .orElse(false);
    }
}
