package dev.fencelock.autoconfigure.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.test.etcd.TestCertificates;
import dev.fencelock.test.zookeeper.ZooKeeperEnsemble;
import dev.fencelock.zookeeper.ZooKeeperLockBackend;
import dev.fencelock.zookeeper.ZooKeeperTls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code fencelock.zookeeper.tls.*}: the properties bind, reach the backend's builder as its
 * {@link ZooKeeperTls}, and a lock is taken through them from a ZooKeeper that serves only TLS to
 * clients with a certificate.
 */
class FenceLockZooKeeperTlsTests {

    private static final TestCertificates certificates = TestCertificates.create();

    private static ZooKeeperEnsemble ensemble;

    private static Path keyStore;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(FenceLockZooKeeperAutoConfiguration.class, FenceLockAutoConfiguration.class));

    @BeforeAll
    static void startServer() throws IOException {
        // ZooKeeper reads a PEM key store as the private key and its certificate in one file.
        keyStore = Files.writeString(
                certificates.directory().resolve("client.pem"),
                Files.readString(certificates.clientKey()) + Files.readString(certificates.clientCertificate()));
        ensemble = ZooKeeperEnsemble.startTls(1, certificates);
    }

    @AfterAll
    static void stopServer() {
        if (ensemble != null) {
            ensemble.close();
        }
    }

    @Test
    void runWithTlsPropertiesShouldHandTheStoresToTheBackendAndLockOverTls() {
        this.runner
                .withPropertyValues(
                        "fencelock.backend=zookeeper",
                        "fencelock.zookeeper.connect-string=" + ensemble.secureConnectString(),
                        "fencelock.zookeeper.tls.enabled=true",
                        "fencelock.zookeeper.tls.trust-store=file:" + certificates.caCertificate(),
                        "fencelock.zookeeper.tls.trust-store-type=pem",
                        "fencelock.zookeeper.tls.key-store=file:" + keyStore)
                .run(context -> {
                    ZooKeeperTls tls =
                            context.getBean(ZooKeeperConnectionDetails.class).getTls();
                    assertThat(tls).isNotNull();
                    assertThat(tls.trustStoreLocation()).isEqualTo(certificates.caCertificate());
                    assertThat(tls.keyStoreLocation()).isEqualTo(keyStore);
                    assertThat(tls.isHostnameVerification()).isTrue();
                    ZooKeeperLockBackend backend = context.getBean(ZooKeeperLockBackend.class);
                    assertThat(backend.health(Duration.ofSeconds(60)).join().details())
                            .containsEntry("tls", true);
                    try (LockLease lease = context.getBean(LockClient.class)
                            .acquire(LockRequest.builder("order:tls")
                                    .waitTimeout(Duration.ofSeconds(60))
                                    .build())) {
                        assertThat(lease.fencingToken()).isPositive();
                    }
                });
    }

    @Test
    void runWithHostnameVerificationOffShouldHandThatToTheBackend() {
        this.runner
                .withPropertyValues(
                        "fencelock.backend=zookeeper",
                        "fencelock.zookeeper.tls.enabled=true",
                        "fencelock.zookeeper.tls.hostname-verification=false")
                .run(context -> {
                    ZooKeeperTls tls =
                            context.getBean(ZooKeeperConnectionDetails.class).getTls();
                    assertThat(tls).isNotNull();
                    assertThat(tls.isHostnameVerification()).isFalse();
                    assertThat(tls.trustStoreLocation()).isNull();
                    assertThat(tls.keyStoreLocation()).isNull();
                });
    }

    @Test
    void runWithoutTlsEnabledShouldConnectInPlainTextWhateverStoresAreSet() {
        this.runner
                .withPropertyValues(
                        "fencelock.backend=zookeeper",
                        "fencelock.zookeeper.tls.trust-store=file:" + certificates.caCertificate())
                .run(context -> {
                    assertThat(context.getBean(ZooKeeperConnectionDetails.class).getTls())
                            .isNull();
                    assertThat(context.getBean(ZooKeeperLockBackend.class)
                                    .health(Duration.ofMillis(100))
                                    .join()
                                    .details())
                            .containsEntry("tls", false);
                });
    }

    @Test
    void runWithATrustStoreThatIsNoReadableFileShouldFailNamingTheProperty() {
        this.runner
                .withPropertyValues(
                        "fencelock.backend=zookeeper",
                        "fencelock.zookeeper.tls.enabled=true",
                        "fencelock.zookeeper.tls.trust-store=file:" + certificates.directory() + "/missing.pem")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("fencelock.zookeeper.tls.trust-store")
                        .hasMessageContaining("is not a readable file"));
    }

    @Test
    void runWithConnectionDetailsShouldTakeTheirTls() {
        ZooKeeperTls tls = ZooKeeperTls.create()
                .trustStore(certificates.caCertificate(), null, "PEM")
                .keyStore(keyStore);
        this.runner
                .withPropertyValues("fencelock.backend=zookeeper")
                .withBean(ZooKeeperConnectionDetails.class, () -> new ZooKeeperConnectionDetails() {
                    @Override
                    public String getConnectString() {
                        return ensemble.secureConnectString();
                    }

                    @Override
                    public ZooKeeperTls getTls() {
                        return tls;
                    }
                })
                .run(context -> {
                    try (LockLease lease = context.getBean(LockClient.class)
                            .acquire(LockRequest.builder("order:details")
                                    .waitTimeout(Duration.ofSeconds(60))
                                    .build())) {
                        assertThat(lease.fencingToken()).isPositive();
                    }
                });
    }
}
