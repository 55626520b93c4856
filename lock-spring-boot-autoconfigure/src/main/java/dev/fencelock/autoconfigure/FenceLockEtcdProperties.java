package dev.fencelock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.Resource;
import org.springframework.util.unit.DataSize;

/** Connection to etcd: the {@code fencelock.etcd.*} properties. */
public class FenceLockEtcdProperties {

    /** etcd client URLs, such as http://10.0.0.1:2379; https:// when TLS is on. */
    private List<String> endpoints = new ArrayList<>(List.of("http://127.0.0.1:2379"));

    /** Login user of etcd authentication. */
    private @Nullable String username;

    /** Login password of etcd authentication. */
    private @Nullable String password;

    /** Time to establish a connection to etcd. */
    private Duration connectTimeout = Duration.ofSeconds(5);

    /** Longest wait for a single etcd request; waiting for a busy lock is bounded by the wait timeout instead. */
    private Duration requestTimeout = Duration.ofSeconds(5);

    /**
     * How long one send of a lock write (acquire, release) waits before it is sent again; such
     * writes are safe to apply twice, so after a leader is lost they are retried as soon as a new
     * one can take them. At most the request timeout.
     */
    private Duration attemptTimeout = Duration.ofSeconds(2);

    /**
     * Whether to check at startup that etcd accepts the connection (TLS) and the credentials, and
     * lets them read and write the namespace's keys; a refusal stops the application, an etcd that
     * cannot be reached is only logged.
     */
    private boolean verifyOnStartup = true;

    /**
     * Database size past which etcd raises its NOSPACE alarm and refuses writes, so that no lock
     * can be taken: the cluster's --quota-backend-bytes. etcd does not report it; health and metrics
     * compare the database's size with this. Plain numbers are bytes, like etcd's flag.
     */
    private DataSize quotaBackendBytes = DataSize.ofGigabytes(2);

    /**
     * How often the database's size, its alarms and the history kept since the last compaction are
     * read for the fencelock.store.* meters; zero reads them only with health checks.
     */
    private Duration capacityCheckInterval = Duration.ofSeconds(30);

    private final Ssl ssl = new Ssl();

    private final Tls tls = new Tls();

    public List<String> getEndpoints() {
        return this.endpoints;
    }

    public void setEndpoints(List<String> endpoints) {
        this.endpoints = endpoints;
    }

    public @Nullable String getUsername() {
        return this.username;
    }

    public void setUsername(@Nullable String username) {
        this.username = username;
    }

    public @Nullable String getPassword() {
        return this.password;
    }

    public void setPassword(@Nullable String password) {
        this.password = password;
    }

    public Duration getConnectTimeout() {
        return this.connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    public Duration getRequestTimeout() {
        return this.requestTimeout;
    }

    public void setRequestTimeout(Duration requestTimeout) {
        this.requestTimeout = requestTimeout;
    }

    public Duration getAttemptTimeout() {
        return this.attemptTimeout;
    }

    public void setAttemptTimeout(Duration attemptTimeout) {
        this.attemptTimeout = attemptTimeout;
    }

    public boolean isVerifyOnStartup() {
        return this.verifyOnStartup;
    }

    public void setVerifyOnStartup(boolean verifyOnStartup) {
        this.verifyOnStartup = verifyOnStartup;
    }

    public DataSize getQuotaBackendBytes() {
        return this.quotaBackendBytes;
    }

    public void setQuotaBackendBytes(DataSize quotaBackendBytes) {
        this.quotaBackendBytes = quotaBackendBytes;
    }

    public Duration getCapacityCheckInterval() {
        return this.capacityCheckInterval;
    }

    public void setCapacityCheckInterval(Duration capacityCheckInterval) {
        this.capacityCheckInterval = capacityCheckInterval;
    }

    public Ssl getSsl() {
        return this.ssl;
    }

    public Tls getTls() {
        return this.tls;
    }

    /** TLS towards etcd from a Spring Boot SSL bundle ({@code spring.ssl.bundle.*}). */
    public static class Ssl {

        /**
         * Name of the SSL bundle (spring.ssl.bundle.pem.* or spring.ssl.bundle.jks.*) whose trust
         * material and client certificate the etcd client uses; setting it turns TLS on.
         */
        private @Nullable String bundle;

        public @Nullable String getBundle() {
            return this.bundle;
        }

        public void setBundle(@Nullable String bundle) {
            this.bundle = bundle;
        }
    }

    /**
     * TLS towards etcd from PEM files. They are read like a PEM SSL bundle, so PKCS#1 and PKCS#8 keys
     * both work; {@link Ssl#getBundle() an SSL bundle} can also be reloaded.
     */
    public static class Tls {

        /** Whether to connect to etcd over TLS; the JVM's trust store is used when no CA certificate is set. */
        private boolean enabled;

        /** PEM file of the certificate authorities to trust; the JVM's trust store when not set. */
        private @Nullable Resource caCertificate;

        /** PEM file of the client certificate, for etcd client certificate authentication. */
        private @Nullable Resource certificate;

        /** PEM file (PKCS#8 or PKCS#1) of the client certificate's private key. */
        private @Nullable Resource privateKey;

        /**
         * Authority (host name) to verify the etcd server certificate against, when it differs from the
         * endpoint host; applies to SSL bundles too.
         */
        private @Nullable String authority;

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public @Nullable Resource getCaCertificate() {
            return this.caCertificate;
        }

        public void setCaCertificate(@Nullable Resource caCertificate) {
            this.caCertificate = caCertificate;
        }

        public @Nullable Resource getCertificate() {
            return this.certificate;
        }

        public void setCertificate(@Nullable Resource certificate) {
            this.certificate = certificate;
        }

        public @Nullable Resource getPrivateKey() {
            return this.privateKey;
        }

        public void setPrivateKey(@Nullable Resource privateKey) {
            this.privateKey = privateKey;
        }

        public @Nullable String getAuthority() {
            return this.authority;
        }

        public void setAuthority(@Nullable String authority) {
            this.authority = authority;
        }
    }
}
