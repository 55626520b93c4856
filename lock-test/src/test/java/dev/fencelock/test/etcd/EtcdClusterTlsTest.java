package dev.fencelock.test.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class EtcdClusterTlsTest {

    /** A give-up time for a member's answer: a loaded machine may take seconds. */
    private static final Duration ANSWER_WITHIN = Duration.ofSeconds(30);

    @Test
    void mutualTlsMembersServeHttpsAndRefusePlainHttp() throws IOException {
        TestCertificates certificates = TestCertificates.create();
        try (EtcdCluster cluster =
                EtcdCluster.builder().mutualTls(certificates).build().start()) {
            assertThat(cluster.endpoints()).allSatisfy(url -> assertThat(url).startsWith("https://127.0.0.1:"));
            assertThat(cluster.member(0).isHealthy(ANSWER_WITHIN)).isTrue();
            assertThat(cluster.awaitLeader(Duration.ofSeconds(30))).isSameAs(cluster.member(0));

            // The kit's probes speak TLS with the client certificate; plain HTTP on the same port gets no answer.
            String plainUrl = cluster.member(0).clientEndpoint().replace("https://", "http://") + "/health";
            assertThatThrownBy(() -> LoopbackHttp.PLAIN.http("GET", plainUrl, null, Duration.ofSeconds(2)))
                    .isInstanceOf(IOException.class);
        }
    }

    @Test
    void enablingAuthLeavesTheMembersHealthyAndRefusesAnonymousWrites() {
        TestCertificates certificates = TestCertificates.create();
        try (EtcdCluster cluster =
                EtcdCluster.builder().tls(certificates).build().start()) {
            cluster.enableAuth("root-secret", EtcdUser.withPrefixes("app", "app-secret", "/app/"));

            assertThat(cluster.member(0).isHealthy(ANSWER_WITHIN)).isTrue();
            assertThatThrownBy(() -> cluster.member(0)
                            .gateway("/v3/kv/put", "{\"key\":\"L2FwcC94\",\"value\":\"eA==\"}", ANSWER_WITHIN))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("user name is empty");
        }
    }

    @Test
    void certificatesArePemFilesWithPkcs8KeysUnlessAskedForPkcs1() throws IOException {
        TestCertificates certificates = TestCertificates.create();

        assertThat(Files.readString(certificates.caCertificate())).startsWith("-----BEGIN CERTIFICATE-----");
        assertThat(Files.readString(certificates.clientKey(), StandardCharsets.US_ASCII))
                .startsWith("-----BEGIN PRIVATE KEY-----");
        var pkcs1 = certificates.issueClient("legacy", "legacy", true);
        assertThat(Files.readString(pkcs1.resolveSibling("legacy.key"))).startsWith("-----BEGIN RSA PRIVATE KEY-----");
        assertThat(TestCertificates.create().caCertificate()).isNotEqualTo(certificates.caCertificate());
    }

    @Test
    void prefixRangesEndWhereEtcdctlEndsThem() {
        assertThat(EtcdAuthSetup.prefixEnd("/app/")).isEqualTo("/app0".getBytes(StandardCharsets.UTF_8));
    }
}
