package dev.fencelock.zookeeper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import org.apache.zookeeper.ClientCnxnSocketNetty;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.apache.zookeeper.common.KeyStoreFileType;
import org.apache.zookeeper.common.X509Exception;
import org.jspecify.annotations.Nullable;

/**
 * TLS towards the ensemble's {@code secureClientPort}s: the trust store that holds the authority of
 * the servers' certificates, and the key store with this client's certificate when the servers ask
 * for one ({@code ssl.clientAuth}, {@code need} by default). Immutable; each method returns a copy.
 *
 * <p>Stores are files of type {@code PEM} (the private key and its certificate chain in one file for
 * a key store, the authorities' certificates for a trust store), {@code PKCS12} or {@code JKS}; the
 * type is taken from the file's extension ({@code .pem}, {@code .p12}, {@code .jks}) unless given.
 * The settings go to each session's own {@link ZKClientConfig}, never to system properties, so
 * backends in one JVM may differ. They switch the session to ZooKeeper's Netty socket, the only one
 * that speaks TLS.
 *
 * <p>The server's certificate must name the host of the connect string ({@code 127.0.0.1}, {@code
 * zk1.example.com}) unless {@link #hostnameVerification(boolean)} turns that check off; it is on by
 * default, and turning it off lets anyone with a certificate of the same authority pose as the
 * ensemble.
 */
public final class ZooKeeperTls {

    private final @Nullable Store trustStore;

    private final @Nullable Store keyStore;

    private final boolean hostnameVerification;

    private ZooKeeperTls(@Nullable Store trustStore, @Nullable Store keyStore, boolean hostnameVerification) {
        this.trustStore = trustStore;
        this.keyStore = keyStore;
        this.hostnameVerification = hostnameVerification;
    }

    /** TLS trusting the JVM's default authorities, without a client certificate, verifying host names. */
    public static ZooKeeperTls create() {
        return new ZooKeeperTls(null, null, true);
    }

    /** The authorities to trust, from {@code location}; no password, type from the extension. */
    public ZooKeeperTls trustStore(Path location) {
        return trustStore(location, null, null);
    }

    /**
     * The authorities to trust instead of the JVM's.
     *
     * @param password the store's password, or {@code null} for none (usual for PEM)
     * @param type {@code PEM}, {@code PKCS12} or {@code JKS}, or {@code null} to take it from the extension
     * @throws IllegalArgumentException when the type is unknown, or not given and not in the extension
     */
    public ZooKeeperTls trustStore(Path location, @Nullable String password, @Nullable String type) {
        return new ZooKeeperTls(
                Store.of("trust store", location, password, type), this.keyStore, this.hostnameVerification);
    }

    /** This client's certificate and private key, from {@code location}; no password, type from the extension. */
    public ZooKeeperTls keyStore(Path location) {
        return keyStore(location, null, null);
    }

    /**
     * This client's certificate and private key, for servers that ask for one.
     *
     * @param password the store's (and key's) password, or {@code null} for none
     * @param type {@code PEM}, {@code PKCS12} or {@code JKS}, or {@code null} to take it from the extension
     * @throws IllegalArgumentException when the type is unknown, or not given and not in the extension
     */
    public ZooKeeperTls keyStore(Path location, @Nullable String password, @Nullable String type) {
        return new ZooKeeperTls(
                this.trustStore, Store.of("key store", location, password, type), this.hostnameVerification);
    }

    /** Whether the server's certificate must name the host it is reached at; true by default. */
    public ZooKeeperTls hostnameVerification(boolean verify) {
        return new ZooKeeperTls(this.trustStore, this.keyStore, verify);
    }

    /** The trust store's file, or {@code null} when the JVM's authorities are trusted. */
    public @Nullable Path trustStoreLocation() {
        return (this.trustStore != null) ? this.trustStore.location : null;
    }

    /** The key store's file, or {@code null} when this client shows no certificate. */
    public @Nullable Path keyStoreLocation() {
        return (this.keyStore != null) ? this.keyStore.location : null;
    }

    /** Whether the server's certificate must name the host it is reached at. */
    public boolean isHostnameVerification() {
        return this.hostnameVerification;
    }

    /** A session's own client configuration: plain text when {@code tls} is null, else TLS with its stores. */
    static ZKClientConfig clientConfig(@Nullable ZooKeeperTls tls) {
        ZKClientConfig config = new ZKClientConfig();
        if (tls != null) {
            tls.applyTo(config);
        }
        return config;
    }

    /** Sets the Netty socket, TLS and the stores on {@code config}. */
    void applyTo(ZKClientConfig config) {
        config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, ClientCnxnSocketNetty.class.getName());
        config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
        try (ClientX509Util names = new ClientX509Util()) {
            config.setProperty(
                    names.getSslHostnameVerificationEnabledProperty(), Boolean.toString(this.hostnameVerification));
            if (this.trustStore != null) {
                config.setProperty(names.getSslTruststoreLocationProperty(), this.trustStore.location.toString());
                config.setProperty(names.getSslTruststoreTypeProperty(), this.trustStore.type);
                if (this.trustStore.password != null) {
                    config.setProperty(names.getSslTruststorePasswdProperty(), this.trustStore.password);
                }
            }
            if (this.keyStore != null) {
                config.setProperty(names.getSslKeystoreLocationProperty(), this.keyStore.location.toString());
                config.setProperty(names.getSslKeystoreTypeProperty(), this.keyStore.type);
                if (this.keyStore.password != null) {
                    config.setProperty(names.getSslKeystorePasswdProperty(), this.keyStore.password);
                }
            }
        }
    }

    /**
     * The TLS context the ZooKeeper client makes from {@code config}: loads the stores, so that a
     * missing file or a wrong password is reported when the backend is built, not as endless
     * reconnections.
     *
     * @throws IllegalArgumentException when a store cannot be read
     */
    static SSLContext sslContext(ZKClientConfig config) {
        try (ClientX509Util util = new ClientX509Util()) {
            return util.createSSLContext(config);
        } catch (X509Exception.SSLContextException | RuntimeException ex) {
            Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
            throw new IllegalArgumentException(
                    "Could not load the ZooKeeper TLS stores (" + cause + "); check the key and trust store"
                            + " locations, passwords and types",
                    ex);
        }
    }

    /** The stores, for messages; never a password. */
    @Override
    public String toString() {
        return "trust store " + ((this.trustStore != null) ? this.trustStore : "of the JVM") + ", key store "
                + ((this.keyStore != null) ? this.keyStore : "none") + ", hostname verification "
                + (this.hostnameVerification ? "on" : "off");
    }

    private record Store(Path location, @Nullable String password, String type) {

        static Store of(String what, Path location, @Nullable String password, @Nullable String type) {
            Objects.requireNonNull(location, what + " location must not be null");
            if (Files.isDirectory(location) || !Files.isReadable(location)) {
                throw new IllegalArgumentException("The ZooKeeper TLS " + what + " " + location
                        + " is not a readable file; give the path of a PEM, PKCS12 or JKS file");
            }
            String fileType;
            try {
                fileType = KeyStoreFileType.fromPropertyValueOrFileName(
                                (type == null || type.isBlank()) ? null : type.toUpperCase(Locale.ROOT),
                                location.toString())
                        .getPropertyValue();
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("The type of the ZooKeeper TLS " + what + " " + location
                        + " is unknown (" + ex.getMessage() + "); give it as PEM, PKCS12 or JKS, or name the file"
                        + " .pem, .p12 or .jks");
            }
            return new Store(location, password, fileType);
        }

        @Override
        public String toString() {
            return this.location + " (" + this.type + ")";
        }
    }
}
