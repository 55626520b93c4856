package dev.fencelock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.LockStoreAccessDeniedException;
import dev.fencelock.spi.BackendHealth;
import dev.fencelock.test.etcd.TestCertificates;
import dev.fencelock.test.zookeeper.ZooKeeperEnsemble;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.client.ZKClientConfig;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The backend against a ZooKeeper server that serves TLS on its {@code secureClientPort} and asks
 * for a client certificate ({@code ssl.clientAuth=need}, ZooKeeper's default): locks work over
 * mutual TLS, and each way the connection can fail for TLS ends an acquisition with an error that
 * names the cause, long before its wait time, instead of reconnecting until the wait time ends.
 */
class ZooKeeperTlsTest {

    /** The wait time of every acquisition here, and the bound of every check: a loaded machine's, not a fast one's. */
    private static final Duration WAIT = Duration.ofSeconds(60);

    private static final TestCertificates certificates = TestCertificates.create();

    private static ZooKeeperEnsemble ensemble;

    @BeforeAll
    static void startServer() {
        ensemble = ZooKeeperEnsemble.startTls(1, certificates);
    }

    @AfterAll
    static void stopServer() {
        ensemble.close();
    }

    @Test
    void locksTokensWaitingAndHealthWorkOverMutualTls() {
        try (ZooKeeperLockBackend backend = backend(ensemble.secureConnectString(), mutualTls(certificates));
                LockClient client = LockClient.builder(backend).build()) {
            LockLease first = client.acquire(request("tls-a"));
            CompletableFuture<LockLease> waiter = client.acquireAsync(request("tls-a"));
            assertThat(first.renew()).isNotNull();
            first.release();
            LockLease second = waiter.join(); // bounded by its wait time

            assertThat(first.fencingToken()).isPositive();
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
            BackendHealth health = backend.health(WAIT).join();
            assertThat(health.up()).as("%s", health.details()).isTrue();
            assertThat(health.details()).containsEntry("tls", true);
            second.release();
        }
    }

    @Test
    void aPkcs12KeyStoreAndTrustStoreWorkToo() throws Exception {
        Path trustStore = certificates.directory().resolve("ca.p12");
        Path keyStore = certificates.directory().resolve("client.p12");
        Pkcs12Stores.write(certificates, trustStore, keyStore, "s3cret");
        ZooKeeperTls tls =
                ZooKeeperTls.create().trustStore(trustStore, "s3cret", null).keyStore(keyStore, "s3cret", null);
        try (LockClient client = client(ensemble.secureConnectString(), tls)) {
            LockLease lease = client.acquire(request("tls-pkcs12"));
            assertThat(lease.fencingToken()).isPositive();
            lease.release();
        }
    }

    @Test
    void anUntrustedServerCertificateFailsFastNamingTls() {
        TestCertificates strangers = TestCertificates.create();
        ZooKeeperTls trustingStrangers = ZooKeeperTls.create()
                .trustStore(strangers.caCertificate(), null, "PEM")
                .keyStore(keyStorePem(certificates));
        try (LockClient client = client(ensemble.secureConnectString(), trustingStrangers)) {
            assertThat(acquisitionFailure(client, "tls-untrusted"))
                    .isInstanceOf(LockBackendUnavailableException.class)
                    .hasMessageContaining("TLS handshake with zookeeper://" + ensemble.secureConnectString())
                    .hasMessageContaining("the server's certificate is not trusted")
                    .hasMessageContaining("certification path");
        }
    }

    @Test
    void aClientWithoutCertificateIsRefusedFastNamingTheCertificate() {
        ZooKeeperTls withoutCertificate = ZooKeeperTls.create().trustStore(certificates.caCertificate(), null, "PEM");
        try (LockClient client = client(ensemble.secureConnectString(), withoutCertificate)) {
            assertThat(acquisitionFailure(client, "tls-no-certificate"))
                    .isInstanceOf(LockStoreAccessDeniedException.class)
                    .hasMessageContaining("refused this client's TLS certificate");
        }
    }

    @Test
    void aPlainTextClientAtTheTlsPortFailsFastNamingTls() {
        try (LockClient client = client(ensemble.secureConnectString(), null)) {
            assertThat(acquisitionFailure(client, "tls-plain"))
                    .isInstanceOf(LockBackendUnavailableException.class)
                    .hasMessageContaining("serves TLS, but this client speaks plain text");
        }
    }

    @Test
    void aTlsClientAtAPlainTextPortFailsFastNamingTls() {
        try (LockClient client = client(ensemble.connectString(), mutualTls(certificates))) {
            assertThat(acquisitionFailure(client, "tls-to-plain"))
                    .isInstanceOf(LockBackendUnavailableException.class)
                    .hasMessageContaining("does not speak TLS on this port")
                    .hasMessageContaining("secureClientPort");
        }
    }

    @Test
    void storesThatCannotBeReadAreRefusedWhenBuilt() throws IOException {
        Path missing = certificates.directory().resolve("missing.pem");
        assertThatThrownBy(() -> ZooKeeperTls.create().trustStore(missing))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a readable file");
        assertThatThrownBy(() -> ZooKeeperTls.create().trustStore(certificates.caCertificate()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("give it as PEM, PKCS12 or JKS");
        Path garbage = Files.writeString(certificates.directory().resolve("garbage.p12"), "not a key store");
        ZooKeeperTls unreadable = ZooKeeperTls.create().trustStore(garbage, "s3cret", null);
        assertThatThrownBy(() -> backend(ensemble.secureConnectString(), unreadable))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Could not load the ZooKeeper TLS stores");
    }

    @Test
    void eachSessionGetsItsOwnTlsSettingsWithHostnameVerificationOnByDefault() {
        ZKClientConfig config = ZooKeeperTls.clientConfig(mutualTls(certificates));
        assertThat(config.getBoolean(ZKClientConfig.SECURE_CLIENT)).isTrue();
        assertThat(config.getProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET))
                .isEqualTo("org.apache.zookeeper.ClientCnxnSocketNetty");
        assertThat(config.getProperty("zookeeper.ssl.hostnameVerification")).isEqualTo("true");
        assertThat(config.getProperty("zookeeper.ssl.trustStore.type")).isEqualTo("PEM");
        assertThat(ZooKeeperTls.clientConfig(mutualTls(certificates).hostnameVerification(false))
                        .getProperty("zookeeper.ssl.hostnameVerification"))
                .isEqualTo("false");
        assertThat(System.getProperty(ZKClientConfig.SECURE_CLIENT)).isNull();
        assertThat(ZooKeeperTls.clientConfig(null).getBoolean(ZKClientConfig.SECURE_CLIENT))
                .isFalse();
    }

    /** Trusts the authority of {@code authority} and shows its client certificate. */
    private static ZooKeeperTls mutualTls(TestCertificates authority) {
        return ZooKeeperTls.create()
                .trustStore(authority.caCertificate(), null, "PEM")
                .keyStore(keyStorePem(authority));
    }

    /** ZooKeeper reads a PEM key store as the private key and its certificate in one file. */
    private static Path keyStorePem(TestCertificates authority) {
        Path pem = authority.directory().resolve("client.pem");
        try {
            if (!Files.exists(pem)) {
                Files.writeString(
                        pem, Files.readString(authority.clientKey()) + Files.readString(authority.clientCertificate()));
            }
            return pem;
        } catch (IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    /**
     * Acquires {@code resource}, which must fail before its wait time ends: a failure taken for an
     * outage is retried until then, a refusal named for its cause ends the acquisition at once.
     */
    private static Throwable acquisitionFailure(LockClient client, String resource) {
        long started = System.nanoTime();
        Throwable failure = catchThrowable(() -> client.acquire(request(resource)));
        assertThat(failure).as("acquiring %s", resource).isNotNull();
        // The wait time is the bound because reconnecting until then is what must not happen; no speed is assumed.
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .as("%s", failure)
                .isLessThan(WAIT);
        return failure;
    }

    private static ZooKeeperLockBackend backend(String connectString, @Nullable ZooKeeperTls tls) {
        return ZooKeeperLockBackend.builder()
                .connectString(connectString)
                .tls(tls)
                .build();
    }

    private static LockClient client(String connectString, @Nullable ZooKeeperTls tls) {
        return LockClient.builder(backend(connectString, tls)).build();
    }

    private static LockRequest request(String resource) {
        return LockRequest.builder(resource).waitTimeout(WAIT).build();
    }
}
