package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.LockStoreAccessDeniedException;
import dev.fencelock.spi.BackendHealth;
import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.etcd.TestCertificates;
import io.etcd.jetcd.ClientBuilder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The backend against an etcd that serves TLS and requires client certificates
 * ({@code --client-cert-auth}): locks work over mutual TLS, and each way the handshake can fail
 * ends an acquisition at once with an error that names the TLS cause, long before its wait time.
 */
class EtcdTlsTest {

    private static final TestCertificates certificates = TestCertificates.create();

    /** Fails fast: well under the wait timeout of the requests below. */
    private static final Duration FAST = Duration.ofSeconds(3);

    @RegisterExtension
    static final EtcdClusterExtension etcd =
            EtcdClusterExtension.of(EtcdCluster.builder().mutualTls(certificates));

    @Test
    void locksTokensWaitingAndHealthWorkOverMutualTls() throws Exception {
        try (LockClient client = client(etcd.endpoints(), TlsClients.trusting(certificates, true))) {
            LockLease first = client.acquire(request("tls-a"));
            CompletableFuture<LockLease> waiter = client.acquireAsync(request("tls-a"));
            assertThat(first.renew()).isNotNull();
            first.release();
            LockLease second = waiter.get(10, TimeUnit.SECONDS);

            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
            BackendHealth health = ((EtcdLockBackend) client.backend())
                    .health(Duration.ofSeconds(2))
                    .join();
            assertThat(health.up()).isTrue();
            assertThat(health.details())
                    .containsEntry("quorum", true)
                    .containsEntry("endpointsReachable", 1)
                    .containsKey("leaderId")
                    .containsEntry("memberCount", 1);
            second.release();
        }
    }

    @Test
    void anUntrustedServerCertificateFailsFastNamingTheCertificate() {
        TestCertificates strangers = TestCertificates.create();
        try (LockClient client = client(etcd.endpoints(), TlsClients.trusting(strangers, false))) {
            long started = System.nanoTime();

            assertThatThrownBy(() -> client.acquire(request("tls-untrusted")))
                    .isInstanceOf(LockBackendUnavailableException.class)
                    .hasMessageContaining("TLS handshake failed")
                    .hasMessageContaining("certificate is not trusted")
                    .hasMessageContaining("certification path");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(FAST);
        }
    }

    @Test
    void aClientWithoutCertificateIsRefusedFastNamingTheCertificate() {
        try (LockClient client = client(etcd.endpoints(), TlsClients.trusting(certificates, false))) {
            long started = System.nanoTime();

            assertThatThrownBy(() -> client.acquire(request("tls-no-certificate")))
                    .isInstanceOf(LockStoreAccessDeniedException.class)
                    .hasMessageContaining("refused this client's TLS certificate")
                    .hasMessageContaining("--client-cert-auth");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(FAST);
        }
    }

    @Test
    void aPlainTextClientFailsFastNamingTls() {
        List<String> plain = etcd.endpoints().stream()
                .map(endpoint -> endpoint.replace("https://", "http://"))
                .toList();
        try (LockClient client = client(plain, builder -> {})) {
            long started = System.nanoTime();

            assertThatThrownBy(() -> client.acquire(request("tls-plain")))
                    .isInstanceOf(LockBackendUnavailableException.class)
                    .hasMessageContaining("serves TLS, but this client speaks plain text")
                    .hasMessageContaining("https://");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(FAST);
        }
    }

    @Test
    void aTlsClientAtAPlainTextPortFailsFastNamingTls() {
        try (EtcdCluster plain = EtcdCluster.start(1)) {
            List<String> https = plain.endpoints().stream()
                    .map(endpoint -> endpoint.replace("http://", "https://"))
                    .toList();
            try (LockClient client = client(https, TlsClients.trusting(certificates, true))) {
                long started = System.nanoTime();

                assertThatThrownBy(() -> client.acquire(request("tls-to-plain")))
                        .isInstanceOf(LockBackendUnavailableException.class)
                        .hasMessageContaining("does not speak TLS on this port");
                assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(FAST);
            }
        }
    }

    @Test
    void credentialsForAnEtcdWithoutAuthenticationAreRefusedNamingThat() {
        try (EtcdLockBackend backend = EtcdLockBackend.builder()
                .endpoints(etcd.endpoints())
                .credentials("someone", "s3cret")
                .customizeClient(TlsClients.trusting(certificates, true))
                .build()) {
            assertThatThrownBy(() -> backend.verifyAccess(Duration.ofSeconds(5)))
                    .isInstanceOf(LockStoreAccessDeniedException.class)
                    .hasMessageContaining("has authentication turned off")
                    .hasMessageNotContaining("s3cret");
        }
    }

    @Test
    void anHttpsEndpointWithoutTlsOrTlsWithAnHttpEndpointIsRefusedWhenBuilt() {
        assertThatThrownBy(() ->
                        EtcdLockBackend.builder().endpoints(etcd.endpoints()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("uses https://, but TLS is not configured");
        assertThatThrownBy(() -> EtcdLockBackend.builder()
                        .endpoints("http://127.0.0.1:1")
                        .customizeClient(TlsClients.trusting(certificates, true))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TLS is configured")
                .hasMessageContaining("uses http://");
    }

    @Test
    void theStartupCheckPassesOverMutualTlsAndThrowsForATlsFailure() {
        try (EtcdLockBackend good = backend(etcd.endpoints(), TlsClients.trusting(certificates, true));
                EtcdLockBackend untrusted =
                        backend(etcd.endpoints(), TlsClients.trusting(TestCertificates.create(), true))) {
            assertThat(good.verifyAccess(Duration.ofSeconds(5))).isTrue();
            assertThatThrownBy(() -> untrusted.verifyAccess(Duration.ofSeconds(5)))
                    .isInstanceOf(LockBackendUnavailableException.class)
                    .hasMessageContaining("TLS handshake failed");
        }
    }

    @Test
    void theStartupCheckOnlyWarnsWhenEtcdCannotBeReached() {
        try (EtcdLockBackend nobody =
                backend(List.of("https://127.0.0.1:1"), TlsClients.trusting(certificates, true))) {
            assertThat(nobody.verifyAccess(Duration.ofSeconds(2))).isFalse();
        }
    }

    private static EtcdLockBackend backend(List<String> endpoints, Consumer<ClientBuilder> tls) {
        return EtcdLockBackend.builder()
                .endpoints(endpoints)
                .customizeClient(tls)
                .build();
    }

    private static LockClient client(List<String> endpoints, Consumer<ClientBuilder> tls) {
        return LockClient.builder(backend(endpoints, tls)).build();
    }

    private static LockRequest request(String resource) {
        return LockRequest.builder(resource).waitTimeout(Duration.ofSeconds(10)).build();
    }
}
