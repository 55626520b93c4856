package dev.fencelock.autoconfigure.etcd;

import java.net.URI;
import java.util.List;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Makes the endpoints' scheme and the TLS settings agree before the client is built: jetcd speaks
 * TLS whenever it has TLS material and plain text otherwise, whatever the URL says, so an
 * {@code https://} endpoint without TLS would connect in plain text without a word.
 */
final class EtcdEndpointSchemes {

    private EtcdEndpointSchemes() {}

    static void check(List<String> endpoints, boolean tls) {
        for (String endpoint : endpoints) {
            String scheme = URI.create(endpoint).getScheme();
            if ("https".equalsIgnoreCase(scheme) && !tls) {
                throw new InvalidConfigurationPropertyValueException(
                        "fencelock.etcd.endpoints",
                        endpoint,
                        "etcd endpoint " + endpoint + " uses https://, but TLS is off: set fencelock.etcd.ssl.bundle"
                                + " (or fencelock.etcd.tls.enabled=true), or use http://");
            }
            if ("http".equalsIgnoreCase(scheme) && tls) {
                throw new InvalidConfigurationPropertyValueException(
                        "fencelock.etcd.endpoints",
                        endpoint,
                        "etcd endpoint " + endpoint + " uses http://, but TLS is on (fencelock.etcd.ssl.bundle or"
                                + " fencelock.etcd.tls.enabled): use https://, or turn TLS off");
            }
        }
    }
}
