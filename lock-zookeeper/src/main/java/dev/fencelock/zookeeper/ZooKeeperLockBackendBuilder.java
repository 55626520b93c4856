package dev.fencelock.zookeeper;

import dev.fencelock.spi.BackendEventListener;
import dev.fencelock.spi.LockAdministration;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Builds a {@link ZooKeeperLockBackend}. */
public final class ZooKeeperLockBackendBuilder {

    private static final Pattern NAMESPACE = Pattern.compile("(/[A-Za-z0-9_.:-]+)+");

    private @Nullable String connectString;

    private String namespace = "/fencelock";

    private Duration administrationSessionTimeout = Duration.ofSeconds(10);

    private @Nullable String digestUser;

    private @Nullable String digestPassword;

    private String instanceId = LockAdministration.defaultInstanceId();

    private BackendEventListener events = BackendEventListener.NONE;

    private @Nullable ZooKeeperTls tls;

    ZooKeeperLockBackendBuilder() {}

    /** The ensemble, e.g. {@code zk1:2181,zk2:2181,zk3:2181}. */
    public ZooKeeperLockBackendBuilder connectString(String connectString) {
        if (connectString.isBlank()) {
            throw new IllegalArgumentException("connectString must name at least one ZooKeeper server");
        }
        this.connectString = connectString;
        return this;
    }

    /**
     * The node below which every lock lives ({@code /fencelock} by default), so several applications
     * can share one ensemble. Created when it is missing.
     */
    public ZooKeeperLockBackendBuilder namespace(String namespace) {
        if (!NAMESPACE.matcher(namespace).matches()
                || namespace.contains("/./")
                || namespace.endsWith("/.")
                || namespace.contains("/../")
                || namespace.endsWith("/..")) {
            throw new IllegalArgumentException("ZooKeeper namespace '" + namespace
                    + "' must be an absolute path such as /fencelock, of letters, digits and _ . : -");
        }
        this.namespace = namespace;
        return this;
    }

    /**
     * The timeout of the session that health checks and queue reads use when no lock session is
     * open yet (10 s by default); it must lie within the servers' session bounds.
     */
    public ZooKeeperLockBackendBuilder administrationSessionTimeout(Duration timeout) {
        if (timeout.toSeconds() < 1) {
            throw new IllegalArgumentException("administrationSessionTimeout must be at least 1 s, was " + timeout);
        }
        this.administrationSessionTimeout = timeout;
        return this;
    }

    /**
     * Authenticates every session with ZooKeeper's {@code digest} scheme and creates the nodes with
     * {@code CREATOR_ALL_ACL}: only sessions of the same user can read, lock or delete them.
     */
    public ZooKeeperLockBackendBuilder digest(String user, String password) {
        if (user.isEmpty() || user.contains(":")) {
            throw new IllegalArgumentException("A digest user must be non-empty and contain no ':'");
        }
        this.digestUser = user;
        this.digestPassword = Objects.requireNonNull(password, "password must not be null");
        return this;
    }

    /** This process's name in holder records ({@code host:pid} by default). */
    public ZooKeeperLockBackendBuilder instanceId(String instanceId) {
        this.instanceId = Objects.requireNonNull(instanceId, "instanceId must not be null");
        return this;
    }

    /** Told of every write's round trip, every lost session and every failed heartbeat, for metrics. */
    public ZooKeeperLockBackendBuilder eventListener(BackendEventListener events) {
        this.events = Objects.requireNonNull(events, "events must not be null");
        return this;
    }

    /**
     * Connects over TLS, to the servers' {@code secureClientPort}s (which the connect string must
     * name), or in plain text when {@code null} (the default).
     */
    public ZooKeeperLockBackendBuilder tls(@Nullable ZooKeeperTls tls) {
        this.tls = tls;
        return this;
    }

    /**
     * Returns the backend; sessions open when the first lock (or health check) needs them.
     *
     * @throws IllegalArgumentException when TLS is set and its stores cannot be read
     */
    public ZooKeeperLockBackend build() {
        if (this.connectString == null) {
            throw new IllegalStateException(
                    "A connect string is required: ZooKeeperLockBackend.builder().connectString(\"zk1:2181\")");
        }
        if (this.tls != null) {
            ZooKeeperTls.sslContext(ZooKeeperTls.clientConfig(this.tls));
        }
        return new ZooKeeperLockBackend(this);
    }

    String connectString() {
        return Objects.requireNonNull(this.connectString);
    }

    String namespace() {
        return this.namespace;
    }

    long administrationTtlSeconds() {
        return this.administrationSessionTimeout.toSeconds();
    }

    @Nullable
    String digestAuth() {
        return (this.digestUser == null) ? null : this.digestUser + ":" + this.digestPassword;
    }

    String instanceId() {
        return this.instanceId;
    }

    BackendEventListener events() {
        return this.events;
    }

    @Nullable
    ZooKeeperTls tls() {
        return this.tls;
    }
}
