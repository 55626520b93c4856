package dev.fencelock.test.etcd;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * TLS on the client URLs of a cluster's members: each member gets its own copy of the server certificate and key
 * (so a test can replace one member's certificate and restart it), and the kit's own HTTP probes trust the
 * cluster's authority and show its client certificate. Peer traffic stays plain: it is not what is tested.
 */
final class MemberTls {

    private final TestCertificates certificates;
    private final boolean clientCertAuth;

    MemberTls(TestCertificates certificates, boolean clientCertAuth) {
        this.certificates = certificates;
        this.clientCertAuth = clientCertAuth;
    }

    /** Copies the server material into {@code directory} and returns etcd's flags for it. */
    List<String> arguments(Path directory) {
        try {
            Path tls = Files.createDirectories(directory.resolve("tls"));
            Files.copy(certificates.serverCertificate(), tls.resolve("server.crt"));
            Files.copy(certificates.serverKey(), tls.resolve("server.key"));
            Files.copy(certificates.caCertificate(), tls.resolve("ca.crt"));
        } catch (IOException e) {
            throw new UncheckedIOException("could not copy the TLS files of a member into " + directory, e);
        }
        Path tls = directory.resolve("tls");
        List<String> arguments = List.of(
                "--cert-file=" + tls.resolve("server.crt"),
                "--key-file=" + tls.resolve("server.key"),
                "--trusted-ca-file=" + tls.resolve("ca.crt"));
        if (!clientCertAuth) {
            return arguments;
        }
        return List.of(arguments.get(0), arguments.get(1), arguments.get(2), "--client-cert-auth");
    }

    /** Trusts the authority and presents the client certificate, as any TLS client of the cluster would. */
    LoopbackHttp http() {
        try {
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            trust.setCertificateEntry("ca", certificate(certificates.caCertificate()));
            TrustManagerFactory trustManagers =
                    TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trust);
            KeyStore identity = KeyStore.getInstance(KeyStore.getDefaultType());
            identity.load(null, null);
            char[] password = new char[0];
            identity.setKeyEntry("client", privateKey(certificates.clientKey()), password, new Certificate[] {
                certificate(certificates.clientCertificate())
            });
            KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(identity, password);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
            return LoopbackHttp.tls(context);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("could not set up TLS for probing the etcd members", e);
        }
    }

    private static Certificate certificate(Path file) throws IOException, GeneralSecurityException {
        try (var in = Files.newInputStream(file)) {
            return CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    private static PrivateKey privateKey(Path file) throws IOException {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
                PEMParser parser = new PEMParser(reader)) {
            Object pem = parser.readObject();
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            if (pem instanceof PEMKeyPair pair) {
                return converter.getPrivateKey(pair.getPrivateKeyInfo());
            }
            return converter.getPrivateKey((PrivateKeyInfo) pem);
        }
    }
}
