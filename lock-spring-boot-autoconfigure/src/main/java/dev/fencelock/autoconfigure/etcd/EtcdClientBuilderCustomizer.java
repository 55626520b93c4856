package dev.fencelock.autoconfigure.etcd;

import io.etcd.jetcd.ClientBuilder;

/**
 * Callback that adjusts the jetcd {@link ClientBuilder} of the auto-configured etcd backend before
 * its client is built: gRPC interceptors, channel options, a load balancer policy. Every bean of
 * this type is applied in {@link org.springframework.core.Ordered order}, after {@code
 * fencelock.etcd.*} (endpoints, credentials, TLS), so a customizer sees and may override them.
 *
 * <p>jetcd's API is not stable across its releases: a customizer is code against that API and may
 * need changes when FenceLock moves to a newer jetcd.
 */
@FunctionalInterface
public interface EtcdClientBuilderCustomizer {

    /** Customizes the builder. */
    void customize(ClientBuilder builder);
}
