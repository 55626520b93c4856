package dev.fencelock.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.core.io.Resource;

/**
 * TLS towards ZooKeeper's {@code secureClientPort}s: the {@code fencelock.zookeeper.tls.*}
 * properties. ZooKeeper's client reads its key and trust stores itself, from files: PEM (for a key
 * store, the private key and its certificate chain in one file), PKCS12 or JKS.
 */
public class FenceLockZooKeeperTlsProperties {

    /**
     * Whether to connect to ZooKeeper over TLS; the connect string must then name the servers'
     * secureClientPorts. The JVM's trust store is used when no trust store is set.
     */
    private boolean enabled;

    /** Trust store file with the certificate authorities of the servers' certificates. */
    private @Nullable Resource trustStore;

    /** Password of the trust store, if it has one. */
    private @Nullable String trustStorePassword;

    /** Type of the trust store: PEM, PKCS12 or JKS; taken from the file extension (.pem, .p12, .jks) when not set. */
    private @Nullable String trustStoreType;

    /** Key store file with the client certificate and its private key, for servers that ask for one (ssl.clientAuth). */
    private @Nullable Resource keyStore;

    /** Password of the key store and its key, if they have one. */
    private @Nullable String keyStorePassword;

    /** Type of the key store: PEM, PKCS12 or JKS; taken from the file extension (.pem, .p12, .jks) when not set. */
    private @Nullable String keyStoreType;

    /** Whether the servers' certificates must name the hosts of the connect string. */
    private boolean hostnameVerification = true;

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public @Nullable Resource getTrustStore() {
        return this.trustStore;
    }

    public void setTrustStore(@Nullable Resource trustStore) {
        this.trustStore = trustStore;
    }

    public @Nullable String getTrustStorePassword() {
        return this.trustStorePassword;
    }

    public void setTrustStorePassword(@Nullable String trustStorePassword) {
        this.trustStorePassword = trustStorePassword;
    }

    public @Nullable String getTrustStoreType() {
        return this.trustStoreType;
    }

    public void setTrustStoreType(@Nullable String trustStoreType) {
        this.trustStoreType = trustStoreType;
    }

    public @Nullable Resource getKeyStore() {
        return this.keyStore;
    }

    public void setKeyStore(@Nullable Resource keyStore) {
        this.keyStore = keyStore;
    }

    public @Nullable String getKeyStorePassword() {
        return this.keyStorePassword;
    }

    public void setKeyStorePassword(@Nullable String keyStorePassword) {
        this.keyStorePassword = keyStorePassword;
    }

    public @Nullable String getKeyStoreType() {
        return this.keyStoreType;
    }

    public void setKeyStoreType(@Nullable String keyStoreType) {
        this.keyStoreType = keyStoreType;
    }

    public boolean isHostnameVerification() {
        return this.hostnameVerification;
    }

    public void setHostnameVerification(boolean hostnameVerification) {
        this.hostnameVerification = hostnameVerification;
    }
}
