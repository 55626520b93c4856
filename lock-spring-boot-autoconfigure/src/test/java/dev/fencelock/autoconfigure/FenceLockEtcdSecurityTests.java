package dev.fencelock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.LockStoreAccessDeniedException;
import dev.fencelock.autoconfigure.etcd.EtcdConnectionDetails;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.etcd.EtcdUser;
import dev.fencelock.test.etcd.TestCertificates;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.ssl.pem.PemContent;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The auto-configured etcd backend against etcd with mutual TLS and authentication, configured
 * the way an application does it: an SSL bundle, or the PEM files of {@code fencelock.etcd.tls.*},
 * and a least-privilege user. Refusals stop startup with an analysis that names them.
 */
class FenceLockEtcdSecurityTests {

    private static final TestCertificates certificates = TestCertificates.create();

    private static final String PASSWORD = "locker-Pa55";

    @RegisterExtension
    static final EtcdClusterExtension etcd =
            EtcdClusterExtension.of(EtcdCluster.builder().mutualTls(certificates));

    private static boolean authEnabled;

    private static synchronized EtcdCluster cluster() {
        if (!authEnabled) {
            etcd.cluster().enableAuth("root-" + PASSWORD, EtcdUser.withPrefixes("locker", PASSWORD, "/fencelock/"));
            authEnabled = true;
        }
        return etcd.cluster();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        SslAutoConfiguration.class,
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class))
                .withPropertyValues(
                        "fencelock.etcd.endpoints=" + cluster().endpointsCsv(),
                        "fencelock.etcd.username=locker",
                        "fencelock.etcd.password=" + PASSWORD);
    }

    private static String[] bundle(TestCertificates trusted) {
        return new String[] {
            "fencelock.etcd.ssl.bundle=etcd",
            "spring.ssl.bundle.pem.etcd.truststore.certificate=file:" + trusted.caCertificate(),
            "spring.ssl.bundle.pem.etcd.keystore.certificate=file:" + certificates.clientCertificate(),
            "spring.ssl.bundle.pem.etcd.keystore.private-key=file:" + certificates.clientKey()
        };
    }

    @Test
    void anSslBundleGivesTheClientMutualTlsAndConnectionDetailsExposeIt() {
        runner().withPropertyValues(bundle(certificates)).run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(EtcdConnectionDetails.class).getSslBundle())
                    .isNotNull();
            try (LockLease lease = context.getBean(LockClient.class).acquire(request("bundle"))) {
                assertThat(lease.fencingToken()).isPositive();
            }
        });
    }

    @Test
    void aJksBundleGivesTheClientMutualTls() throws Exception {
        char[] password = "store-Pa55".toCharArray();
        Path keyStore = certificates.directory().resolve("client.jks");
        Path trustStore = certificates.directory().resolve("trust.jks");
        PemContent client = PemContent.load(certificates.clientCertificate());
        PemContent clientKey = PemContent.load(certificates.clientKey());
        KeyStore keys = KeyStore.getInstance("JKS");
        keys.load(null, null);
        keys.setKeyEntry(
                "client",
                clientKey.getPrivateKey(),
                password,
                client.getCertificates().toArray(new Certificate[0]));
        try (OutputStream out = Files.newOutputStream(keyStore)) {
            keys.store(out, password);
        }
        KeyStore trust = KeyStore.getInstance("JKS");
        trust.load(null, null);
        trust.setCertificateEntry(
                "ca",
                PemContent.load(certificates.caCertificate()).getCertificates().get(0));
        try (OutputStream out = Files.newOutputStream(trustStore)) {
            trust.store(out, password);
        }
        runner().withPropertyValues(
                        "fencelock.etcd.ssl.bundle=etcd-jks",
                        "spring.ssl.bundle.jks.etcd-jks.keystore.location=file:" + keyStore,
                        "spring.ssl.bundle.jks.etcd-jks.keystore.password=store-Pa55",
                        "spring.ssl.bundle.jks.etcd-jks.keystore.type=JKS",
                        "spring.ssl.bundle.jks.etcd-jks.truststore.location=file:" + trustStore,
                        "spring.ssl.bundle.jks.etcd-jks.truststore.password=store-Pa55",
                        "spring.ssl.bundle.jks.etcd-jks.truststore.type=JKS")
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    try (LockLease lease = context.getBean(LockClient.class).acquire(request("jks"))) {
                        assertThat(lease.fencingToken()).isPositive();
                    }
                });
    }

    @Test
    void pemFilesWithAPkcs1KeyTakeTheSamePath() throws Exception {
        Path legacy = certificates.issueClient("legacy", TestCertificates.CLIENT_COMMON_NAME, true);
        Path legacyKey = legacy.resolveSibling("legacy.key");
        assertThat(Files.readString(legacyKey)).startsWith("-----BEGIN RSA PRIVATE KEY-----");
        runner().withPropertyValues(
                        "fencelock.etcd.tls.enabled=true",
                        "fencelock.etcd.tls.ca-certificate=file:" + certificates.caCertificate(),
                        "fencelock.etcd.tls.certificate=file:" + legacy,
                        "fencelock.etcd.tls.private-key=file:" + legacyKey)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    try (LockLease lease = context.getBean(LockClient.class).acquire(request("pkcs1"))) {
                        assertThat(lease.fencingToken()).isPositive();
                    }
                });
    }

    @Test
    void aWrongPasswordStopsStartupNamingAuthenticationAndNotThePassword() {
        String wrong = "not-" + PASSWORD;
        runner().withPropertyValues(bundle(certificates))
                .withPropertyValues("fencelock.etcd.password=" + wrong)
                .run((context) -> {
                    Throwable failure = context.getStartupFailure();
                    assertThat(causes(failure)).hasAtLeastOneElementOfType(LockStoreAccessDeniedException.class);
                    FailureAnalysis analysis = new LockStoreRefusedFailureAnalyzer().analyze(failure);
                    assertThat(analysis.getDescription())
                            .contains("refused the credentials of user 'locker'")
                            .contains("authentication failed")
                            .doesNotContain(wrong);
                    assertThat(analysis.getAction())
                            .contains("fencelock.etcd.password")
                            .contains("fencelock.etcd.verify-on-startup=false")
                            .doesNotContain(wrong);
                });
    }

    @Test
    void aNamespaceOutsideTheRoleStopsStartupNamingThePermission() {
        runner().withPropertyValues(bundle(certificates))
                .withPropertyValues("fencelock.namespace=/billing")
                .run((context) -> {
                    FailureAnalysis analysis =
                            new LockStoreRefusedFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .contains("denied user 'locker' permission")
                            .contains("every key under '/billing/'");
                });
    }

    @Test
    void anUntrustedServerStopsStartupNamingTls() {
        runner().withPropertyValues(bundle(TestCertificates.create())).run((context) -> {
            Throwable failure = context.getStartupFailure();
            assertThat(causes(failure)).hasAtLeastOneElementOfType(LockBackendUnavailableException.class);
            FailureAnalysis analysis = new LockStoreRefusedFailureAnalyzer().analyze(failure);
            assertThat(analysis.getDescription())
                    .contains("could not be reached over TLS")
                    .contains("certificate is not trusted");
            assertThat(analysis.getAction()).contains("fencelock.etcd.ssl.bundle");
        });
    }

    private static List<Throwable> causes(Throwable failure) {
        List<Throwable> causes = new ArrayList<>();
        for (Throwable cause = failure; cause != null && !causes.contains(cause); cause = cause.getCause()) {
            causes.add(cause);
        }
        return causes;
    }

    private static LockRequest request(String resource) {
        return LockRequest.builder(resource).waitTimeout(Duration.ofSeconds(10)).build();
    }
}
