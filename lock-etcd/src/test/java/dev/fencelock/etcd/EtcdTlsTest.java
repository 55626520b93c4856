package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

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

    /** The wait time of every acquisition here, and the bound of every check: a loaded machine's, not a fast one's. */
    private static final Duration WAIT = Duration.ofSeconds(60);

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
            LockLease second = waiter.join(); // bounded by its wait time

            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
            BackendHealth health =
                    ((EtcdLockBackend) client.backend()).health(WAIT).join();
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
            assertThat(acquisitionFailure(client, "tls-untrusted"))
                    .isInstanceOf(LockBackendUnavailableException.class)
                    .hasMessageContaining("TLS handshake failed")
                    .hasMessageContaining("certificate is not trusted")
                    .hasMessageContaining("certification path");
        }
    }

    @Test
    void aClientWithoutCertificateIsRefusedFastNamingTheCertificate() {
        try (LockClient client = client(etcd.endpoints(), TlsClients.trusting(certificates, false))) {
            assertThat(acquisitionFailure(client, "tls-no-certificate"))
                    .isInstanceOf(LockStoreAccessDeniedException.class)
                    .hasMessageContaining("refused this client's TLS certificate")
                    .hasMessageContaining("--client-cert-auth");
        }
    }

    @Test
    void aPlainTextClientFailsFastNamingTls() {
        List<String> plain = etcd.endpoints().stream()
                .map(endpoint -> endpoint.replace("https://", "http://"))
                .toList();
        try (LockClient client = client(plain, builder -> {})) {
            assertThat(acquisitionFailure(client, "tls-plain"))
                    .isInstanceOf(LockBackendUnavailableException.class)
                    .hasMessageContaining("serves TLS, but this client speaks plain text")
                    .hasMessageContaining("https://");
        }
    }

    @Test
    void aPlainTextClientWhoseConnectionsAreResetIsToldThePortServesTls() {
        try (TlsPortFront front = TlsPortFront.resetting(etcd.endpoints().get(0), Duration.ZERO);
                LockClient client = client(List.of(front.plainTextEndpoint()), builder -> {})) {
            assertThat(acquisitionFailure(client, "tls-plain-reset"))
                    .isInstanceOf(LockBackendUnavailableException.class)
                    .hasMessageContaining("serves TLS, but this client speaks plain text");
            assertThat(front.droppedConnections()).isPositive();
        }
    }

    @Test
    void aTlsPortThatShowsItsCertificateLateIsStillNamed() {
        // As late as a loaded machine may be: past a fixed second, well inside the request's own 20 s.
        Duration late = Duration.ofSeconds(2);
        try (TlsPortFront front = TlsPortFront.closing(etcd.endpoints().get(0), late);
                LockClient client = LockClient.builder(EtcdLockBackend.builder()
                                .endpoints(front.plainTextEndpoint())
                                .requestTimeout(Duration.ofSeconds(20))
                                .build())
                        .build()) {
            assertThat(acquisitionFailure(client, "tls-plain-late"))
                    .isInstanceOf(LockBackendUnavailableException.class)
                    .hasMessageContaining("serves TLS, but this client speaks plain text");
            assertThat(front.droppedConnections()).isPositive();
        }
    }

    @Test
    void aTlsClientAtAPlainTextPortFailsFastNamingTls() {
        try (EtcdCluster plain = EtcdCluster.start(1)) {
            List<String> https = plain.endpoints().stream()
                    .map(endpoint -> endpoint.replace("http://", "https://"))
                    .toList();
            try (LockClient client = client(https, TlsClients.trusting(certificates, true))) {
                assertThat(acquisitionFailure(client, "tls-to-plain"))
                        .isInstanceOf(LockBackendUnavailableException.class)
                        .hasMessageContaining("does not speak TLS on this port");
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
            assertThatThrownBy(() -> backend.verifyAccess(WAIT))
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
            assertThat(good.verifyAccess(WAIT)).isTrue();
            assertThatThrownBy(() -> untrusted.verifyAccess(WAIT))
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

    /**
     * Acquires {@code resource}, which must fail before its wait time ends: a failure taken for an
     * outage is retried until then, a refusal named for its cause ends the acquisition at once.
     */
    private static Throwable acquisitionFailure(LockClient client, String resource) {
        long started = System.nanoTime();
        Throwable failure = catchThrowable(() -> client.acquire(request(resource)));
        assertThat(failure).as("acquiring %s", resource).isNotNull();
        // The wait time is the bound because retrying is what must not happen; no speed is assumed.
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .as("%s", failure)
                .isLessThan(WAIT);
        return failure;
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
        return LockRequest.builder(resource).waitTimeout(WAIT).build();
    }
}
