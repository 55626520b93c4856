package dev.fencelock.autoconfigure.audit;

import dev.fencelock.LockClient;
import dev.fencelock.audit.LockAuditLog;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.spi.LockAdministration;
import dev.fencelock.spi.LockBackend;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the audit trail ({@link LockAuditLog} on the {@code dev.fencelock.audit}
 * logger); off with {@code fencelock.audit.enabled=false}. The auto-configured {@link LockClient}
 * receives it like every {@link dev.fencelock.LockEventListener} bean.
 *
 * <p>Audit lines name the instance the same way the etcd holder records do, so a line can be
 * matched with the holder an operator sees in the store.
 */
@AutoConfiguration(after = FenceLockAutoConfiguration.class)
@ConditionalOnBean(LockClient.class)
@ConditionalOnBooleanProperty(name = "fencelock.audit.enabled", matchIfMissing = true)
public final class FenceLockAuditAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockAuditLog lockAuditLog(ObjectProvider<LockBackend> backend) {
        // The backend, not the client: the client is created with this listener, so it cannot be asked.
        return new LockAuditLog(instanceId(backend.getIfUnique()));
    }

    private static String instanceId(@Nullable LockBackend backend) {
        return (backend instanceof LockAdministration administration)
                ? administration.instanceId()
                : LockAdministration.defaultInstanceId();
    }
}
