package dev.fencelock.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.fencelock.FencingContext.Fence;
import dev.fencelock.test.etcd.TestCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Which fence headers a service that trusts its callers by mutual TLS accepts, with and without
 * the client certificate that the TLS layer verified.
 */
class MutualTlsTrustTests {

    static final TestCertificates certificates = TestCertificates.create();

    static final X509Certificate[] CLIENT = chain(certificates.clientCertificate());

    static final X509Certificate[] INTRUDER = chain(certificates.issueClient("intruder", "intruder", false));

    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    private static final Fence ORDER = new Fence("order:42", 1043, null);

    private final String unsigned =
            FenceHeaderSigner.unsigned("etcd-a", Duration.ofSeconds(30), CLOCK).header(List.of(ORDER));

    @Test
    void unsignedHeaderIsTheSignedOneWithoutKeyAndSignature() {
        assertThat(this.unsigned)
                .isEqualTo("v=1; exp=" + (NOW.getEpochSecond() + 30) + "; scope=ZXRjZC1h; fences=b3JkZXI6NDI:1043");
    }

    @Test
    void unsignedHeaderFromACallerWithAVerifiedCertificateIsAcceptedNamingItsSubject() {
        FenceHeaderVerifier.Verified verified = verifier(List.of()).verify(this.unsigned, CLIENT);

        assertThat(verified.fences()).containsExactly(ORDER);
        assertThat(verified.scope()).isEqualTo("etcd-a");
        assertThat(verified.keyId()).isNull();
        assertThat(verified.clientSubject()).isEqualTo("CN=" + TestCertificates.CLIENT_COMMON_NAME);
    }

    @Test
    void unsignedHeaderWithoutAClientCertificateIsRefusedAsFromAnUntrustedCaller() {
        FenceHeaderVerifier verifier = verifier(List.of());

        assertRefused(() -> verifier.verify(this.unsigned, null), FenceRefusalReason.UNTRUSTED_CALLER);
        assertRefused(
                () -> verifier.verify(this.unsigned, new X509Certificate[0]), FenceRefusalReason.UNTRUSTED_CALLER);
        assertRefused(() -> verifier.check(List.of(this.unsigned), true, null), FenceRefusalReason.UNTRUSTED_CALLER);
    }

    @Test
    void withTrustBySignatureACertificateDoesNotMakeAnUnsignedHeaderTrusted() {
        FenceHeaderVerifier bySignature =
                new FenceHeaderVerifier(keys(null), Set.of("etcd-a"), Duration.ofSeconds(5), CLOCK);

        assertRefused(() -> bySignature.verify(this.unsigned, CLIENT), FenceRefusalReason.UNSIGNED);
    }

    @Test
    void trustedSubjectsAdmitOnlyTheCertificatesTheyName() {
        // Compared as X.500 names: the attribute type's case and the spacing do not matter.
        FenceHeaderVerifier verifier =
                verifier(List.of("cn=" + TestCertificates.CLIENT_COMMON_NAME, "CN=billing, O=Example"));

        assertThat(verifier.verify(this.unsigned, CLIENT).fences()).containsExactly(ORDER);
        assertRefused(() -> verifier.verify(this.unsigned, INTRUDER), FenceRefusalReason.UNTRUSTED_CALLER);
    }

    @Test
    void signedHeadersAreStillCheckedByTheirSignatureWhateverTheCertificate() {
        FenceHeaderVerifier verifier = verifier(List.of());
        String signed =
                new FenceHeaderSigner(keys("k1"), "etcd-a", Duration.ofSeconds(30), CLOCK).header(List.of(ORDER));

        assertThat(verifier.verify(signed, null).keyId()).isEqualTo("k1");
        assertThat(verifier.verify(signed, null).clientSubject()).isNull();
        assertRefused(() -> verifier.verify(signed.replace(":1043;", ":9999;"), CLIENT), FenceRefusalReason.FORGED);
    }

    @Test
    void anUnsignedHeaderIsCheckedForItsFormExpiryAndScopeToo() {
        FenceHeaderVerifier verifier = verifier(List.of());
        String withKeyId = this.unsigned.replace("v=1; ", "v=1; kid=k1; ");
        String expired = FenceHeaderSigner.unsigned(
                        "etcd-a", Duration.ofSeconds(30), Clock.offset(CLOCK, Duration.ofMinutes(-10)))
                .header(List.of(ORDER));
        String otherScope = FenceHeaderSigner.unsigned("etcd-b", Duration.ofSeconds(30), CLOCK)
                .header(List.of(ORDER));

        assertRefused(() -> verifier.verify(withKeyId, CLIENT), FenceRefusalReason.MALFORMED);
        assertRefused(
                () -> verifier.verify("v=1; exp=1; fences=b3JkZXI6NDI:1043", CLIENT), FenceRefusalReason.MALFORMED);
        assertRefused(() -> verifier.verify(expired, CLIENT), FenceRefusalReason.EXPIRED);
        assertRefused(() -> verifier.verify(otherScope, CLIENT), FenceRefusalReason.SCOPE);
    }

    @Test
    void aTrustedSubjectThatIsNotADistinguishedNameIsRefusedNamingIt() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new MutualTlsTrust(List.of("orders service")))
                .withMessageContaining("'orders service' is not a distinguished name");
    }

    private static FenceHeaderVerifier verifier(List<String> trustedSubjects) {
        return new FenceHeaderVerifier(
                keys(null), Set.of("etcd-a"), Duration.ofSeconds(5), CLOCK, new MutualTlsTrust(trustedSubjects));
    }

    private static FenceSigningKeys keys(@Nullable String current) {
        return new FenceSigningKeys(Map.of("k1", FenceHeaderTests.SECRET_1), current);
    }

    private static void assertRefused(Runnable verification, FenceRefusalReason reason) {
        assertThatExceptionOfType(FenceHeaderRefusedException.class)
                .isThrownBy(verification::run)
                .satisfies(ex -> assertThat(ex.reason()).isEqualTo(reason));
    }

    /** The certificate in a PEM file, as the chain a TLS layer hands over for it. */
    static X509Certificate[] chain(Path pem) {
        try (InputStream in = Files.newInputStream(pem)) {
            return new X509Certificate[] {
                (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in)
            };
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        } catch (GeneralSecurityException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
