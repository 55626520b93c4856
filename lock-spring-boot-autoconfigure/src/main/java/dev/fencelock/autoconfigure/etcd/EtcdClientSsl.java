package dev.fencelock.autoconfigure.etcd;

import io.etcd.jetcd.ClientBuilder;
import java.util.List;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslOptions;

/**
 * Gives the jetcd client TLS from an {@link SslBundle}: its trust material, its client certificate
 * and its protocols and ciphers. The bundle can be replaced later ({@link #update}); new connections
 * then use the new material, and open connections, with the locks on them, are kept.
 */
final class EtcdClientSsl implements Consumer<ClientBuilder> {

    private static final Logger logger = LoggerFactory.getLogger(EtcdClientSsl.class);

    private final ReloadableSslManagers managers;

    private final SslOptions options;

    private final @Nullable String authority;

    EtcdClientSsl(SslBundle bundle, @Nullable String authority) {
        this.managers = new ReloadableSslManagers(bundle);
        this.options = bundle.getOptions();
        this.authority = authority;
    }

    @Override
    public void accept(ClientBuilder builder) {
        try {
            builder.sslContext(ssl -> {
                ssl.keyManager(this.managers.keyManager()).trustManager(this.managers.trustManager());
                String[] protocols = this.options.getEnabledProtocols();
                if (protocols != null) {
                    ssl.protocols(protocols);
                }
                String[] ciphers = this.options.getCiphers();
                if (ciphers != null) {
                    ssl.ciphers(List.of(ciphers));
                }
            });
        } catch (SSLException ex) {
            throw new IllegalStateException("Could not set up TLS towards etcd: " + ex.getMessage(), ex);
        }
        if (this.authority != null) {
            builder.authority(this.authority);
        }
    }

    /** The bundle was reloaded: handshakes from now on use its material. */
    void update(String bundleName, SslBundle bundle) {
        this.managers.use(bundle);
        logger.info(
                "SSL bundle '{}' was updated: new connections to etcd use it, open ones and their locks are kept",
                bundleName);
    }
}
