package dev.fencelock.autoconfigure.etcd;

import dev.fencelock.autoconfigure.FenceLockEtcdProperties;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/**
 * {@link EtcdConnectionDetails} read from {@code fencelock.etcd.*}. TLS comes from the SSL bundle
 * named by {@code fencelock.etcd.ssl.bundle}, or from the PEM files of {@code fencelock.etcd.tls.*}.
 */
public class PropertiesEtcdConnectionDetails implements EtcdConnectionDetails {

    private final FenceLockEtcdProperties properties;

    private final @Nullable SslBundles sslBundles;

    public PropertiesEtcdConnectionDetails(FenceLockEtcdProperties properties) {
        this(properties, null);
    }

    public PropertiesEtcdConnectionDetails(FenceLockEtcdProperties properties, @Nullable SslBundles sslBundles) {
        this.properties = properties;
        this.sslBundles = sslBundles;
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

    /**
     * The bundle named by {@code fencelock.etcd.ssl.bundle}, or the PEM files of
     * {@code fencelock.etcd.tls.*} when {@code fencelock.etcd.tls.enabled}, else {@code null}.
     *
     * @throws InvalidConfigurationPropertyValueException if no bundle has that name
     */
    @Override
    public @Nullable SslBundle getSslBundle() {
        String name = this.properties.getSsl().getBundle();
        if (name != null) {
            List<String> known = (this.sslBundles != null) ? this.sslBundles.getBundleNames() : List.of();
            try {
                if (this.sslBundles != null) {
                    return this.sslBundles.getBundle(name);
                }
            } catch (NoSuchSslBundleException ex) {
                // reported below, naming the property
            }
            throw new InvalidConfigurationPropertyValueException(
                    "fencelock.etcd.ssl.bundle",
                    name,
                    "No SSL bundle is named '" + name + "' (known bundles: " + known + "). Define it under"
                            + " spring.ssl.bundle.pem." + name + ".* or spring.ssl.bundle.jks." + name + ".*");
        }
        if (this.properties.getTls().isEnabled()) {
            return PemFilesSslBundle.of(this.properties.getTls());
        }
        return null;
    }

    @Override
    public String toString() {
        // Never the password.
        return "PropertiesEtcdConnectionDetails[endpoints=" + getEndpoints() + ", username=" + getUsername()
                + ", tls="
                + (this.properties.getSsl().getBundle() != null
                        || this.properties.getTls().isEnabled())
                + "]";
    }
}
