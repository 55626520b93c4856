package dev.fencelock.zookeeper;

import dev.fencelock.test.etcd.TestCertificates;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;

/** The test authority's PEM files as PKCS#12 stores, the form most Java deployments keep them in. */
final class Pkcs12Stores {

    private Pkcs12Stores() {}

    /** Writes the authority's certificate into {@code trustStore} and the client's key and certificate into {@code keyStore}. */
    static void write(TestCertificates certificates, Path trustStore, Path keyStore, String password) throws Exception {
        char[] secret = password.toCharArray();
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", certificate(certificates.caCertificate()));
        try (OutputStream out = Files.newOutputStream(trustStore)) {
            trust.store(out, secret);
        }
        KeyStore identity = KeyStore.getInstance("PKCS12");
        identity.load(null, null);
        identity.setKeyEntry("client", privateKey(certificates.clientKey()), secret, new Certificate[] {
            certificate(certificates.clientCertificate())
        });
        try (OutputStream out = Files.newOutputStream(keyStore)) {
            identity.store(out, secret);
        }
    }

    private static Certificate certificate(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    /** A PKCS#8 {@code PRIVATE KEY}, as the test authority writes it. */
    private static PrivateKey privateKey(Path pem) throws Exception {
        String body = Files.readString(pem).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("RSA")
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
    }
}
