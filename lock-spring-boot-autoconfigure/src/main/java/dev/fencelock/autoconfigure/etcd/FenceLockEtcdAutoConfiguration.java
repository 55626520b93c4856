package dev.fencelock.autoconfigure.etcd;

import dev.fencelock.LockClient;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.FenceLockEtcdProperties;
import dev.fencelock.autoconfigure.FenceLockProperties;
import dev.fencelock.autoconfigure.OnLockBackendCondition;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.etcd.EtcdLockBackendBuilder;
import dev.fencelock.spi.BackendEventListener;
import dev.fencelock.spi.LockBackend;
import io.etcd.jetcd.ClientBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * The etcd {@link LockBackend} for {@code fencelock.backend=etcd} (the default), from {@link
 * EtcdConnectionDetails} and {@code fencelock.etcd.*}. Backs off when the application defines its
 * own {@link LockBackend} or {@link LockClient}. {@link EtcdClientBuilderCustomizer} beans adjust
 * the jetcd client, after {@code fencelock.etcd.*}. Unless {@code fencelock.etcd.verify-on-startup}
 * is off, startup stops when etcd refuses the connection, the credentials or the namespace. At
 * startup, every etcd backend of the application (its own ones included) is checked for a namespace
 * nested with another ({@link EtcdNamespaceCheck}). Every {@link BackendEventListener} bean (the
 * backend's meters) receives what the backend sees of etcd, in {@code @Order} order.
 */
@AutoConfiguration(before = FenceLockAutoConfiguration.class, after = SslAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "fencelock.enabled", matchIfMissing = true)
@ConditionalOnClass(EtcdLockBackend.class)
@Conditional(OnLockBackendCondition.Etcd.class)
@EnableConfigurationProperties(FenceLockProperties.class)
public final class FenceLockEtcdAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(EtcdConnectionDetails.class)
    PropertiesEtcdConnectionDetails fenceLockEtcdConnectionDetails(
            FenceLockProperties properties, ObjectProvider<SslBundles> sslBundles) {
        return new PropertiesEtcdConnectionDetails(properties.getEtcd(), sslBundles.getIfAvailable());
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean({LockBackend.class, LockClient.class})
    EtcdLockBackend etcdLockBackend(
            FenceLockProperties properties,
            EtcdConnectionDetails connectionDetails,
            ObjectProvider<SslBundles> sslBundles,
            ObjectProvider<EtcdClientBuilderCustomizer> customizers,
            ObjectProvider<BackendEventListener> backendEventListeners) {
        FenceLockEtcdProperties etcd = properties.getEtcd();
        EtcdLockBackendBuilder builder = EtcdLockBackend.builder()
                .endpoints(connectionDetails.getEndpoints())
                .namespace(properties.getNamespace())
                .connectTimeout(etcd.getConnectTimeout())
                .requestTimeout(etcd.getRequestTimeout())
                .attemptTimeout(etcd.getAttemptTimeout())
                .quotaBackendBytes(etcd.getQuotaBackendBytes().toBytes())
                .capacityCheckInterval(etcd.getCapacityCheckInterval());
        String username = connectionDetails.getUsername();
        String password = connectionDetails.getPassword();
        if (username != null && password != null) {
            builder.credentials(username, password);
        }
        backendEventListeners.orderedStream().forEach(builder::eventListener);
        // The backend keeps one client customizer: TLS from the properties first, then the beans in order.
        List<Consumer<ClientBuilder>> clientCustomizers = new ArrayList<>();
        SslBundle bundle = connectionDetails.getSslBundle();
        EtcdEndpointSchemes.check(connectionDetails.getEndpoints(), bundle != null);
        if (bundle != null) {
            EtcdClientSsl ssl = new EtcdClientSsl(bundle, etcd.getTls().getAuthority());
            clientCustomizers.add(ssl);
            String name = etcd.getSsl().getBundle();
            SslBundles bundles = sslBundles.getIfAvailable();
            if (name != null && bundles != null && connectionDetails instanceof PropertiesEtcdConnectionDetails) {
                bundles.addBundleUpdateHandler(name, updated -> ssl.update(name, updated));
            }
        }
        customizers.orderedStream().forEach((customizer) -> clientCustomizers.add(customizer::customize));
        if (!clientCustomizers.isEmpty()) {
            builder.customizeClient((client) -> clientCustomizers.forEach((customizer) -> customizer.accept(client)));
        }
        EtcdLockBackend backend = builder.build();
        if (etcd.isVerifyOnStartup()) {
            try {
                backend.verifyAccess(etcd.getRequestTimeout());
            } catch (RuntimeException ex) {
                backend.close();
                throw ex;
            }
        }
        return backend;
    }

    @Bean
    @ConditionalOnMissingBean
    EtcdNamespaceCheck etcdNamespaceCheck(ListableBeanFactory beanFactory, FenceLockProperties properties) {
        return new EtcdNamespaceCheck(beanFactory, properties.getEtcd().getRequestTimeout());
    }
}
