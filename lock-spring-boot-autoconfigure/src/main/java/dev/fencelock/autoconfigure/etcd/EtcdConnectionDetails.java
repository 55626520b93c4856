package dev.fencelock.autoconfigure.etcd;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * Details for a connection to etcd. By default they come from {@code fencelock.etcd.*}; a bean of
 * this type (for example one that Testcontainers' {@code @ServiceConnection} registers) takes
 * precedence over the properties.
 */
public interface EtcdConnectionDetails extends ConnectionDetails {

    /** etcd client URLs, such as {@code http://10.0.0.1:2379}; never empty. */
    List<String> getEndpoints();

    /** Login user for etcd authentication, or {@code null} without authentication. */
    default @Nullable String getUsername() {
        return null;
    }

    /** Login password for etcd authentication, or {@code null} without authentication. */
    default @Nullable String getPassword() {
        return null;
    }

    /**
     * TLS material (trusted certificates, client certificate) for {@code https://} endpoints, or
     * {@code null} for plain text. TLS is on exactly when this is not {@code null}.
     */
    default @Nullable SslBundle getSslBundle() {
        return null;
    }
}
