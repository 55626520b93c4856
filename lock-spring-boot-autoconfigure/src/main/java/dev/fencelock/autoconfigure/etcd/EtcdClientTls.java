package dev.fencelock.autoconfigure.etcd;

import dev.fencelock.autoconfigure.FenceLockProperties;
import io.etcd.jetcd.ClientBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.Resource;

/** Applies {@code fencelock.etcd.tls.*} to the jetcd client. */
final class EtcdClientTls implements Consumer<ClientBuilder> {

    private final FenceLockProperties.Tls tls;

    EtcdClientTls(FenceLockProperties.Tls tls) {
        this.tls = tls;
    }

    @Override
    public void accept(ClientBuilder builder) {
        try {
            builder.sslContext((ssl) -> {
                Resource ca = this.tls.getCaCertificate();
                if (ca != null) {
                    ssl.trustManager(read(ca, "fencelock.etcd.tls.ca-certificate"));
                }
                Resource certificate = this.tls.getCertificate();
                Resource privateKey = this.tls.getPrivateKey();
                if (certificate != null && privateKey != null) {
                    ssl.keyManager(
                            read(certificate, "fencelock.etcd.tls.certificate"),
                            read(privateKey, "fencelock.etcd.tls.private-key"));
                }
            });
        } catch (SSLException | IllegalArgumentException ex) {
            throw new IllegalStateException(
                    "Could not set up TLS towards etcd from fencelock.etcd.tls.*: " + ex.getMessage(), ex);
        }
        String authority = this.tls.getAuthority();
        if (authority != null) {
            builder.authority(authority);
        }
    }

    private static InputStream read(@Nullable Resource resource, String property) {
        try {
            return resource.getInputStream();
        } catch (IOException ex) {
            throw new IllegalStateException("Cannot read " + property + " (" + resource + "): " + ex.getMessage(), ex);
        }
    }
}
