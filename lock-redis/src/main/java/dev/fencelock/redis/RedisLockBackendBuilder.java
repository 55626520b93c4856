package dev.fencelock.redis;

import dev.fencelock.spi.BackendEventListener;
import dev.fencelock.spi.LockAdministration;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** Builds a {@link RedisLockBackend}. */
public final class RedisLockBackendBuilder {

    private @Nullable RedisURI uri;

    private @Nullable RedisClient client;

    private String namespace = "fencelock";

    private Duration requestTimeout = Duration.ofSeconds(5);

    private String instanceId = LockAdministration.defaultInstanceId();

    private BackendEventListener events = BackendEventListener.NONE;

    RedisLockBackendBuilder() {}

    /** The server, e.g. {@code redis://127.0.0.1:6379} or {@code rediss://user:secret@host:6380/0}. */
    public RedisLockBackendBuilder uri(String uri) {
        return uri(RedisURI.create(uri));
    }

    /** The server, with credentials, TLS and database as Lettuce takes them. */
    public RedisLockBackendBuilder uri(RedisURI uri) {
        this.uri = Objects.requireNonNull(uri, "uri must not be null");
        return this;
    }

    /**
     * A Lettuce client to open the backend's two connections with (one for commands, one for the
     * release channels); the application keeps it and shuts it down. Without one, the backend
     * creates its own and shuts it down on close.
     */
    public RedisLockBackendBuilder client(RedisClient client) {
        this.client = Objects.requireNonNull(client, "client must not be null");
        return this;
    }

    /** The prefix of every key and channel, so several applications can share one server. */
    public RedisLockBackendBuilder namespace(String namespace) {
        if (namespace.isEmpty() || namespace.contains("{") || namespace.contains("}")) {
            throw new IllegalArgumentException("Redis namespace '" + namespace
                    + "' must be non-empty and contain no braces (they would change the keys' hash slot)");
        }
        this.namespace = namespace;
        return this;
    }

    /** How long one command may take before it fails (and the lock store counts as unavailable). */
    public RedisLockBackendBuilder requestTimeout(Duration requestTimeout) {
        if (requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("requestTimeout must be positive, was " + requestTimeout);
        }
        this.requestTimeout = requestTimeout;
        return this;
    }

    /** This process's name in holder records ({@code host:pid} by default). */
    public RedisLockBackendBuilder instanceId(String instanceId) {
        this.instanceId = Objects.requireNonNull(instanceId, "instanceId must not be null");
        return this;
    }

    /** Told of every write's round trip and every failed renewal, for metrics. */
    public RedisLockBackendBuilder eventListener(BackendEventListener events) {
        this.events = Objects.requireNonNull(events, "events must not be null");
        return this;
    }

    /** Connects and returns the backend. */
    public RedisLockBackend build() {
        if (this.uri == null) {
            throw new IllegalStateException(
                    "A Redis URI is required: RedisLockBackend.builder().uri(\"redis://host:6379\")");
        }
        return new RedisLockBackend(this);
    }

    RedisURI uri() {
        RedisURI copy = RedisURI.builder(Objects.requireNonNull(this.uri)).build();
        copy.setTimeout(this.requestTimeout);
        return copy;
    }

    @Nullable
    RedisClient client() {
        return this.client;
    }

    String namespace() {
        return this.namespace;
    }

    String instanceId() {
        return this.instanceId;
    }

    BackendEventListener events() {
        return this.events;
    }
}
