package dev.fencelock.etcd;

import dev.fencelock.test.etcd.TestCertificates;
import io.etcd.jetcd.ClientBuilder;
import java.io.UncheckedIOException;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;

/** jetcd TLS settings for the tests: trust a test authority, and show its client certificate or not. */
final class TlsClients {

    private TlsClients() {}

    static Consumer<ClientBuilder> trusting(TestCertificates authority, boolean withClientCertificate) {
        return builder -> {
            try {
                builder.sslContext(ssl -> {
                    ssl.trustManager(authority.caCertificate().toFile());
                    if (withClientCertificate) {
                        ssl.keyManager(
                                authority.clientCertificate().toFile(),
                                authority.clientKey().toFile());
                    }
                });
            } catch (SSLException ex) {
                throw new UncheckedIOException(ex);
            }
        };
    }
}
