package dev.fencelock.test.etcd;

import dev.fencelock.test.fault.ExitCleanup;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaMiscPEMGenerator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * A certificate authority made at test time, with the server and client certificates that TLS tests against etcd
 * need, written as PEM files into a temporary directory that is deleted when the JVM exits. No private key is ever
 * checked in; each call of {@link #create()} makes a new, unrelated authority, so two of them do not trust each
 * other (which is how tests get an untrusted server).
 *
 * <p>The server certificate names {@code 127.0.0.1} and {@code localhost}, where the cluster's members listen. The
 * client certificate's common name is {@link #CLIENT_COMMON_NAME}; private keys are PKCS#8 unless asked for PKCS#1.
 */
public final class TestCertificates {

    /** Common name of the client certificate; etcd takes it as the user name when a request carries no token. */
    public static final String CLIENT_COMMON_NAME = "fencelock-client";

    private static final Duration VALIDITY = Duration.ofDays(2);
    private static final AtomicLong SERIALS = new AtomicLong(System.currentTimeMillis());

    private final Path directory;
    private final KeyPair caKeys;
    private final X509Certificate ca;

    private TestCertificates(Path directory, KeyPair caKeys, X509Certificate ca) {
        this.directory = directory;
        this.caKeys = caKeys;
        this.ca = ca;
    }

    /** Makes a new authority and issues a server and a client certificate from it. */
    public static TestCertificates create() {
        try {
            Path directory = Files.createTempDirectory("fencelock-tls-");
            ExitCleanup.track(directory);
            KeyPair caKeys = keyPair();
            X500Name caName = new X500Name("CN=FenceLock test CA " + serial());
            X509v3CertificateBuilder builder = builder(caName, caName, caKeys);
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            X509Certificate ca = sign(builder, caKeys.getPrivate());
            TestCertificates certificates = new TestCertificates(directory, caKeys, ca);
            writePem(certificates.caCertificate(), ca);
            certificates.issueServer(certificates.serverCertificate(), certificates.serverKey());
            certificates.issueClient(
                    CLIENT_COMMON_NAME, certificates.clientCertificate(), certificates.clientKey(), false);
            return certificates;
        } catch (IOException e) {
            throw new UncheckedIOException("could not write test certificates", e);
        }
    }

    /** The directory holding the PEM files. */
    public Path directory() {
        return directory;
    }

    /** PEM of the authority's certificate: what a client or server trusts. */
    public Path caCertificate() {
        return directory.resolve("ca.crt");
    }

    /** PEM of the server certificate, for {@code 127.0.0.1} and {@code localhost}. */
    public Path serverCertificate() {
        return directory.resolve("server.crt");
    }

    /** PEM (PKCS#8) of the server certificate's private key. */
    public Path serverKey() {
        return directory.resolve("server.key");
    }

    /** PEM of the client certificate, common name {@link #CLIENT_COMMON_NAME}. */
    public Path clientCertificate() {
        return directory.resolve("client.crt");
    }

    /** PEM (PKCS#8, {@code BEGIN PRIVATE KEY}) of the client certificate's private key. */
    public Path clientKey() {
        return directory.resolve("client.key");
    }

    /**
     * Issues another client certificate into {@code name.crt} and {@code name.key} of this directory.
     *
     * @param commonName the certificate's common name
     * @param pkcs1 whether to write the key as PKCS#1 ({@code BEGIN RSA PRIVATE KEY}) instead of PKCS#8
     * @return the certificate file; the key file is beside it with the {@code .key} suffix
     */
    public Path issueClient(String name, String commonName, boolean pkcs1) {
        Path certificate = directory.resolve(name + ".crt");
        issueClient(commonName, certificate, directory.resolve(name + ".key"), pkcs1);
        return certificate;
    }

    /** Issues a fresh server certificate into the given files, for a member whose certificate is rotated. */
    public void issueServer(Path certificate, Path key) {
        try {
            KeyPair keys = keyPair();
            X509v3CertificateBuilder builder = builder(new X500Name("CN=etcd " + serial()), issuerName(), keys);
            leafExtensions(builder, keys, KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth);
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                new GeneralName(GeneralName.iPAddress, "127.0.0.1"), new GeneralName(GeneralName.dNSName, "localhost")
            }));
            writePem(certificate, sign(builder, caKeys.getPrivate()));
            writePem(key, keys.getPrivate(), false);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write a server certificate", e);
        }
    }

    private void issueClient(String commonName, Path certificate, Path key, boolean pkcs1) {
        try {
            KeyPair keys = keyPair();
            X509v3CertificateBuilder builder = builder(new X500Name("CN=" + commonName), issuerName(), keys);
            leafExtensions(builder, keys, KeyPurposeId.id_kp_clientAuth);
            writePem(certificate, sign(builder, caKeys.getPrivate()));
            writePem(key, keys.getPrivate(), pkcs1);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write a client certificate", e);
        }
    }

    private X500Name issuerName() {
        return X500Name.getInstance(ca.getSubjectX500Principal().getEncoded());
    }

    private static void leafExtensions(X509v3CertificateBuilder builder, KeyPair keys, KeyPurposeId... purposes)
            throws IOException {
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        builder.addExtension(
                Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
        builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purposes));
        try {
            builder.addExtension(
                    Extension.subjectKeyIdentifier,
                    false,
                    new JcaX509ExtensionUtils().createSubjectKeyIdentifier(keys.getPublic()));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static X509v3CertificateBuilder builder(X500Name subject, X500Name issuer, KeyPair keys) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(
                issuer,
                BigInteger.valueOf(serial()),
                Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(VALIDITY)),
                subject,
                keys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey issuerKey) {
        try {
            ContentSigner signer = new JcaContentSignerBuilder("SHA256withRSA").build(issuerKey);
            return new JcaX509CertificateConverter().getCertificate(builder.build(signer));
        } catch (OperatorCreationException | GeneralSecurityException e) {
            throw new IllegalStateException("could not sign a test certificate", e);
        }
    }

    private static KeyPair keyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048, new SecureRandom());
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("no RSA key pair generator", e);
        }
    }

    private static long serial() {
        return SERIALS.incrementAndGet();
    }

    private static void writePem(Path file, X509Certificate certificate) throws IOException {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(certificate);
        }
        Files.writeString(file, text.toString(), StandardCharsets.US_ASCII);
    }

    /** PKCS#8 as {@code PRIVATE KEY}, or PKCS#1 as {@code RSA PRIVATE KEY}, the two forms found in the wild. */
    private static void writePem(Path file, PrivateKey key, boolean pkcs1) throws IOException {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            if (pkcs1) {
                writer.writeObject(new JcaMiscPEMGenerator(key));
            } else {
                writer.writeObject(new PemObject("PRIVATE KEY", key.getEncoded()));
            }
        }
        Files.writeString(file, text.toString(), StandardCharsets.US_ASCII);
    }
}
