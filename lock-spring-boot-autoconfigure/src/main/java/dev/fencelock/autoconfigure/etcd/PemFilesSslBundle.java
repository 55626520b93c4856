package dev.fencelock.autoconfigure.etcd;

import dev.fencelock.autoconfigure.FenceLockEtcdProperties;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.pem.PemSslStoreBundle;
import org.springframework.boot.ssl.pem.PemSslStoreDetails;
import org.springframework.core.io.Resource;

/**
 * The PEM files of {@code fencelock.etcd.tls.*} as an {@link SslBundle}, so they take the same path
 * as {@code fencelock.etcd.ssl.bundle}: Spring Boot's PEM parser reads them, which accepts PKCS#1 and
 * PKCS#8 keys alike.
 */
final class PemFilesSslBundle {

    private PemFilesSslBundle() {}

    static SslBundle of(FenceLockEtcdProperties.Tls tls) {
        String ca = read(tls.getCaCertificate(), "fencelock.etcd.tls.ca-certificate");
        String certificate = read(tls.getCertificate(), "fencelock.etcd.tls.certificate");
        String key = read(tls.getPrivateKey(), "fencelock.etcd.tls.private-key");
        if (ca == null && certificate == null) {
            return SslBundle.systemDefault();
        }
        PemSslStoreDetails identity = (certificate != null)
                ? PemSslStoreDetails.forCertificate(certificate).withPrivateKey(key)
                : null;
        PemSslStoreDetails trust = (ca != null) ? PemSslStoreDetails.forCertificates(ca) : null;
        SslBundle bundle = SslBundle.of(new PemSslStoreBundle(identity, trust));
        try {
            // Parse now, so a bad file stops startup naming the property, not the first connection.
            bundle.getManagers().getKeyManagers();
            bundle.getManagers().getTrustManagers();
        } catch (RuntimeException ex) {
            throw new InvalidConfigurationPropertyValueException(
                    (certificate != null) ? "fencelock.etcd.tls.private-key" : "fencelock.etcd.tls.ca-certificate",
                    (certificate != null) ? tls.getPrivateKey() : tls.getCaCertificate(),
                    "fencelock.etcd.tls.* could not be read as PEM (" + rootMessage(ex)
                            + "); expected certificates in PEM and a PKCS#8 or PKCS#1 private key");
        }
        return bundle;
    }

    private static @Nullable String read(@Nullable Resource resource, String property) {
        if (resource == null) {
            return null;
        }
        try {
            return resource.getContentAsString(StandardCharsets.US_ASCII);
        } catch (IOException ex) {
            throw new InvalidConfigurationPropertyValueException(
                    property, resource, property + " cannot be read: " + ex.getMessage());
        }
    }

    private static String rootMessage(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return String.valueOf(cause.getMessage());
    }
}
