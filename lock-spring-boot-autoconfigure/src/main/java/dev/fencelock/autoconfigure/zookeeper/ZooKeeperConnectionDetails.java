package dev.fencelock.autoconfigure.zookeeper;

import dev.fencelock.zookeeper.ZooKeeperTls;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * Details for a connection to ZooKeeper. By default they come from {@code fencelock.zookeeper.*};
 * a bean of this type (for example a test's) takes precedence over the properties.
 */
public interface ZooKeeperConnectionDetails extends ConnectionDetails {

    /** The ensemble's servers, comma-separated {@code host:port} pairs; never empty. */
    String getConnectString();

    /** User of ZooKeeper's digest scheme, or {@code null} without authentication. */
    default @Nullable String getUsername() {
        return null;
    }

    /** Password of the digest user, or {@code null} without authentication. */
    default @Nullable String getPassword() {
        return null;
    }

    /**
     * TLS towards the servers, whose {@code secureClientPort}s the connect string then names, or
     * {@code null} for plain text.
     */
    default @Nullable ZooKeeperTls getTls() {
        return null;
    }
}
