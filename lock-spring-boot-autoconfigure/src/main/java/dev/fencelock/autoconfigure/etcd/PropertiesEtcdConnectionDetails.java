package dev.fencelock.autoconfigure.etcd;

import dev.fencelock.autoconfigure.FenceLockProperties;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** {@link EtcdConnectionDetails} read from {@code fencelock.etcd.*}. */
public class PropertiesEtcdConnectionDetails implements EtcdConnectionDetails {

    private final FenceLockProperties.Etcd properties;

    public PropertiesEtcdConnectionDetails(FenceLockProperties.Etcd properties) {
        this.properties = properties;
    }

    @Override
    public List<String> getEndpoints() {
        return this.properties.getEndpoints().stream().map(String::trim).toList();
    }

    @Override
    public @Nullable String getUsername() {
        return this.properties.getUsername();
    }

    @Override
    public @Nullable String getPassword() {
        return this.properties.getPassword();
    }
}
