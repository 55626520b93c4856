package dev.fencelock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.etcd.EtcdMember;
import dev.fencelock.test.etcd.TestCertificates;
import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundleRegistry;
import org.springframework.boot.ssl.pem.PemSslStoreBundle;
import org.springframework.boot.ssl.pem.PemSslStoreDetails;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An SSL bundle that is updated while the application runs ({@code reload-on-update}, or any
 * {@link SslBundleRegistry#updateBundle}): etcd's certificate is rotated to a new authority, the
 * bundle is updated to trust it, and new connections use it while the lock held all along is kept.
 * Its own cluster, because it changes the member's certificate.
 */
class FenceLockEtcdSslReloadTests {

    private static final TestCertificates certificates = TestCertificates.create();

    @RegisterExtension
    static final EtcdClusterExtension etcd =
            EtcdClusterExtension.of(EtcdCluster.builder().mutualTls(certificates));

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        SslAutoConfiguration.class,
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class))
                .withPropertyValues(
                        "fencelock.etcd.endpoints=" + etcd.cluster().endpointsCsv(),
                        "fencelock.etcd.ssl.bundle=etcd",
                        "spring.ssl.bundle.pem.etcd.truststore.certificate=file:" + certificates.caCertificate(),
                        "spring.ssl.bundle.pem.etcd.keystore.certificate=file:" + certificates.clientCertificate(),
                        "spring.ssl.bundle.pem.etcd.keystore.private-key=file:" + certificates.clientKey());
    }

    @Test
    void aReloadedBundleIsUsedForNewConnectionsAndHeldLocksAreKept() {
        runner().run((context) -> {
            LockClient client = context.getBean(LockClient.class);
            LockLease held = client.acquire(LockRequest.builder("reload-held")
                    .leaseTtl(Duration.ofSeconds(60))
                    .build());

            // etcd's certificate is rotated to a new authority the bundle does not trust yet.
            EtcdMember member = etcd.cluster().member(0);
            TestCertificates rotated = TestCertificates.create();
            rotated.issueServer(member.serverCertificateFile(), member.serverKeyFile());
            member.restartWithoutWaiting();
            await().atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> assertThatThrownBy(() -> client.acquire(LockRequest.builder("reload-before")
                                    .waitTimeout(Duration.ofSeconds(1))
                                    .build()))
                            .isInstanceOf(LockBackendUnavailableException.class)
                            .hasMessageContaining("certificate is not trusted"));

            context.getBean(SslBundleRegistry.class).updateBundle("etcd", bundleTrusting(rotated));

            await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
                try (LockLease after = client.acquire(LockRequest.builder("reload-after")
                        .waitTimeout(Duration.ofSeconds(2))
                        .build())) {
                    return after.fencingToken() > held.fencingToken();
                }
            });
            assertThat(held.isValid()).isTrue();
            held.renew();
            assertThat(held.release()).isTrue();
        });
    }

    private static SslBundle bundleTrusting(TestCertificates authority) throws Exception {
        PemSslStoreDetails identity = PemSslStoreDetails.forCertificate(
                        Files.readString(certificates.clientCertificate()))
                .withPrivateKey(Files.readString(certificates.clientKey()));
        PemSslStoreDetails trust = PemSslStoreDetails.forCertificates(Files.readString(authority.caCertificate()));
        return SslBundle.of(new PemSslStoreBundle(identity, trust));
    }
}
