package dev.fencelock.autoconfigure.zookeeper;

import dev.fencelock.LockClient;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.FenceLockProperties;
import dev.fencelock.autoconfigure.OnLockBackendCondition;
import dev.fencelock.spi.BackendEventListener;
import dev.fencelock.spi.LockBackend;
import dev.fencelock.zookeeper.ZooKeeperLockBackend;
import dev.fencelock.zookeeper.ZooKeeperLockBackendBuilder;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * The ZooKeeper {@link LockBackend} for {@code fencelock.backend=zookeeper}, connecting where a
 * {@link ZooKeeperConnectionDetails} bean or {@code fencelock.zookeeper.*} points, over TLS when
 * {@code fencelock.zookeeper.tls.enabled}. Sessions open when the first lock or health check needs
 * them. Backs off when the application defines its own {@link LockBackend} or {@link LockClient}.
 */
@AutoConfiguration(before = FenceLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "fencelock.enabled", matchIfMissing = true)
@ConditionalOnClass(ZooKeeperLockBackend.class)
@Conditional(OnLockBackendCondition.ZooKeeper.class)
@EnableConfigurationProperties(FenceLockProperties.class)
public final class FenceLockZooKeeperAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(ZooKeeperConnectionDetails.class)
    ZooKeeperConnectionDetails fenceLockZooKeeperConnectionDetails(FenceLockProperties properties) {
        return new PropertiesZooKeeperConnectionDetails(properties.getZookeeper());
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean({LockBackend.class, LockClient.class})
    ZooKeeperLockBackend zooKeeperLockBackend(
            FenceLockProperties properties,
            ZooKeeperConnectionDetails connectionDetails,
            ObjectProvider<BackendEventListener> backendEventListeners) {
        ZooKeeperLockBackendBuilder builder = ZooKeeperLockBackend.builder()
                .connectString(connectionDetails.getConnectString())
                .namespace(properties.getNamespace())
                .administrationSessionTimeout(properties.getZookeeper().getAdministrationSessionTimeout())
                .tls(connectionDetails.getTls())
                .eventListener(BackendEventListener.composite(
                        backendEventListeners.orderedStream().toList()));
        String username = connectionDetails.getUsername();
        if (username != null) {
            String password = connectionDetails.getPassword();
            if (password == null) {
                throw new IllegalStateException("fencelock.zookeeper.username is set, but no password: set"
                        + " fencelock.zookeeper.password too, or remove the username to connect without"
                        + " authentication");
            }
            builder.digest(username, password);
        }
        return builder.build();
    }
}
