package dev.fencelock.autoconfigure.zookeeper;

import dev.fencelock.autoconfigure.FenceLockProperties;
import dev.fencelock.autoconfigure.FenceLockZooKeeperTlsProperties;
import dev.fencelock.zookeeper.ZooKeeperTls;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.io.Resource;

/**
 * {@link ZooKeeperConnectionDetails} read from {@code fencelock.zookeeper.*}; TLS from {@code
 * fencelock.zookeeper.tls.*} when {@code fencelock.zookeeper.tls.enabled}.
 */
public class PropertiesZooKeeperConnectionDetails implements ZooKeeperConnectionDetails {

    private static final String TLS = "fencelock.zookeeper.tls.";

    private final FenceLockProperties.ZooKeeper properties;

    public PropertiesZooKeeperConnectionDetails(FenceLockProperties.ZooKeeper properties) {
        this.properties = properties;
    }

    @Override
    public String getConnectString() {
        return this.properties.getConnectString();
    }

    @Override
    public @Nullable String getUsername() {
        return this.properties.getUsername();
    }

    @Override
    public @Nullable String getPassword() {
        return this.properties.getPassword();
    }

    /**
     * The stores of {@code fencelock.zookeeper.tls.*} when TLS is enabled, else {@code null}.
     *
     * @throws InvalidConfigurationPropertyValueException when a store is not a file, or cannot be used
     */
    @Override
    public @Nullable ZooKeeperTls getTls() {
        FenceLockZooKeeperTlsProperties tls = this.properties.getTls();
        if (!tls.isEnabled()) {
            return null;
        }
        ZooKeeperTls settings = ZooKeeperTls.create().hostnameVerification(tls.isHostnameVerification());
        Resource trustStore = tls.getTrustStore();
        if (trustStore != null) {
            Path file = file(trustStore, "trust-store");
            settings = configure(
                    "trust-store",
                    trustStore,
                    settings,
                    s -> s.trustStore(file, tls.getTrustStorePassword(), tls.getTrustStoreType()));
        }
        Resource keyStore = tls.getKeyStore();
        if (keyStore != null) {
            Path file = file(keyStore, "key-store");
            settings = configure(
                    "key-store",
                    keyStore,
                    settings,
                    s -> s.keyStore(file, tls.getKeyStorePassword(), tls.getKeyStoreType()));
        }
        return settings;
    }

    private static ZooKeeperTls configure(
            String property, Resource store, ZooKeeperTls settings, UnaryOperator<ZooKeeperTls> change) {
        try {
            return change.apply(settings);
        } catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException(TLS + property, store, ex.getMessage());
        }
    }

    /** ZooKeeper's client opens its stores by path, so a store inside a jar cannot be used. */
    private static Path file(Resource store, String property) {
        try {
            return store.getFile().toPath();
        } catch (IOException ex) {
            throw new InvalidConfigurationPropertyValueException(
                    TLS + property,
                    store,
                    "ZooKeeper's client reads its stores from files; give a file: location, not one inside a jar");
        }
    }

    @Override
    public String toString() {
        return "PropertiesZooKeeperConnectionDetails{connectString=" + getConnectString() + ", tls="
                + this.properties.getTls().isEnabled() + "}";
    }
}
