package dev.fencelock.autoconfigure.redis;

import io.lettuce.core.RedisURI;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

/**
 * Spring Boot's Redis connection details as the Lettuce URI the lock backend connects with. One
 * server or a Sentinel-managed primary; a Redis Cluster or a static primary/replica setup is
 * refused, and so is an SSL bundle, each with what to do instead.
 */
final class RedisLockUris {

    private RedisLockUris() {}

    static RedisURI from(DataRedisConnectionDetails details) {
        if (details.getCluster() != null) {
            throw new IllegalStateException("fencelock.backend=redis locks on one Redis primary, but spring.data.redis"
                    + " describes a Redis Cluster; point spring.data.redis.host/port (or sentinel) at one primary,"
                    + " or use fencelock.backend=etcd");
        }
        if (details.getMasterReplica() != null) {
            throw new IllegalStateException("fencelock.backend=redis locks on the primary only, but spring.data.redis"
                    + " describes static primary/replica nodes; point spring.data.redis.host/port at the primary");
        }
        if (details.getSslBundle() != null) {
            throw new IllegalStateException("fencelock.backend=redis does not take an SSL bundle yet; define a"
                    + " RedisLockBackend bean with a rediss:// URI instead");
        }
        RedisURI.Builder builder;
        DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
        if (sentinel != null) {
            DataRedisConnectionDetails.Node first = sentinel.getNodes().get(0);
            builder = RedisURI.Builder.sentinel(first.host(), first.port(), sentinel.getMaster());
            for (DataRedisConnectionDetails.Node node :
                    sentinel.getNodes().subList(1, sentinel.getNodes().size())) {
                builder.withSentinel(node.host(), node.port());
            }
            builder.withDatabase(sentinel.getDatabase());
        } else {
            DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
            builder = RedisURI.Builder.redis(standalone.getHost(), standalone.getPort())
                    .withDatabase(standalone.getDatabase());
        }
        String password = details.getPassword();
        if (password != null) {
            String username = details.getUsername();
            if (username != null) {
                builder.withAuthentication(username, password);
            } else {
                builder.withPassword(password.toCharArray());
            }
        }
        return builder.build();
    }
}
