package dev.fencelock.etcd;

import dev.fencelock.spi.BackendEventListener;
import dev.fencelock.spi.LockAdministration;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** Builds an {@link EtcdLockBackend}; start with {@link EtcdLockBackend#builder()}. */
public final class EtcdLockBackendBuilder {

    List<String> endpoints = List.of("http://127.0.0.1:2379");

    String namespace = "/fencelock";

    private Duration connectTimeout = Duration.ofSeconds(5);

    Duration requestTimeout = Duration.ofSeconds(5);

    Duration attemptTimeout = Duration.ofSeconds(2);

    Duration recheckInterval = Duration.ofSeconds(2);

    Duration retryGrace = Duration.ofSeconds(10);

    Duration abandonMarkerLifetime = Duration.ofMinutes(2);

    Duration sweepInterval = Duration.ofMinutes(1);

    /** etcd's default {@code --quota-backend-bytes}: 2 GiB. */
    long quotaBackendBytes = 2L * 1024 * 1024 * 1024;

    Duration capacityCheckInterval = Duration.ofSeconds(30);

    private @Nullable String user;

    private @Nullable String password;

    private @Nullable Supplier<Client> clientFactory;

    private @Nullable Consumer<ClientBuilder> customizer;

    String instanceId = LockAdministration.defaultInstanceId();

    private final List<BackendEventListener> listeners = new ArrayList<>();

    EtcdLockBackendBuilder() {}

    /** etcd client URLs, e.g. {@code http://10.0.0.1:2379}. */
    public EtcdLockBackendBuilder endpoints(List<String> endpoints) {
        Objects.requireNonNull(endpoints, "endpoints must not be null");
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("At least one etcd endpoint is required");
        }
        this.endpoints = List.copyOf(endpoints);
        return this;
    }

    public EtcdLockBackendBuilder endpoints(String... endpoints) {
        return endpoints(List.of(endpoints));
    }

    /** Key prefix for all locks (default {@code /fencelock}); clients that should exclude each other share it. */
    public EtcdLockBackendBuilder namespace(String namespace) {
        this.namespace = LockKeys.validateNamespace(namespace);
        return this;
    }

    /** Time to establish a connection (5 s). */
    public EtcdLockBackendBuilder connectTimeout(Duration timeout) {
        this.connectTimeout = Objects.requireNonNull(timeout);
        return this;
    }

    /** Longest wait for any single etcd request (5 s); a waiting acquire is bounded by its wait timeout. */
    public EtcdLockBackendBuilder requestTimeout(Duration timeout) {
        this.requestTimeout = Objects.requireNonNull(timeout);
        return this;
    }

    /**
     * How long one send of a guarded write (an acquisition's put, a release, an abandon) waits
     * for its answer before it is sent again (2 s, at most the request timeout). They are safe to
     * apply twice, so after a leader is lost they are retried as soon as a new one can take them,
     * instead of after the request timeout.
     */
    public EtcdLockBackendBuilder attemptTimeout(Duration timeout) {
        this.attemptTimeout = Objects.requireNonNull(timeout);
        return this;
    }

    /** How often a waiter re-reads its predecessor in case a watch event was lost (2 s). */
    public EtcdLockBackendBuilder recheckInterval(Duration interval) {
        this.recheckInterval = Objects.requireNonNull(interval);
        return this;
    }

    /**
     * How long a key whose put had an unknown outcome is kept for a retry with the same request
     * id before it is deleted (10 s). Keys of generated request ids are deleted at once.
     */
    public EtcdLockBackendBuilder retryGrace(Duration grace) {
        this.retryGrace = Objects.requireNonNull(grace);
        return this;
    }

    /**
     * How long an abandon marker blocks a late put of its request id (2 min): longer than a put
     * can take to reach etcd in practice. A put that arrives even later creates a key nobody holds,
     * which the session's sweep removes ({@link #sweepInterval}).
     */
    public EtcdLockBackendBuilder abandonMarkerLifetime(Duration lifetime) {
        this.abandonMarkerLifetime = Objects.requireNonNull(lifetime);
        return this;
    }

    /**
     * How often each session lease is checked for keys on it that this client neither holds nor
     * is acquiring, which it then deletes (1 min). One etcd read per session lease, listing its keys.
     */
    public EtcdLockBackendBuilder sweepInterval(Duration interval) {
        this.sweepInterval = Objects.requireNonNull(interval);
        return this;
    }

    /**
     * The cluster's {@code --quota-backend-bytes} (2 GiB, etcd's default when the flag is unset or
     * 0): the database size past which etcd raises its {@code NOSPACE} alarm and refuses writes, so
     * that no lock can be taken. etcd does not report it, so health and metrics compare the
     * database's size with this.
     */
    public EtcdLockBackendBuilder quotaBackendBytes(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("quotaBackendBytes must be positive, got " + bytes);
        }
        this.quotaBackendBytes = bytes;
        return this;
    }

    /**
     * How often the database's size, its alarms and the history kept since the last compaction are
     * read for the event listener's capacity meters (30 s); zero reads them only with health checks.
     * One status request per endpoint and, while nothing was compacted, one count-only read.
     */
    public EtcdLockBackendBuilder capacityCheckInterval(Duration interval) {
        Objects.requireNonNull(interval);
        if (interval.isNegative()) {
            throw new IllegalArgumentException("capacityCheckInterval must not be negative, got " + interval);
        }
        this.capacityCheckInterval = interval;
        return this;
    }

    /** Credentials for etcd authentication. */
    public EtcdLockBackendBuilder credentials(String user, String password) {
        this.user = Objects.requireNonNull(user);
        this.password = Objects.requireNonNull(password);
        return this;
    }

    /**
     * Adjusts the jetcd client before it is built (TLS, authority, interceptors). TLS is on when the
     * customizer gives the client an {@code sslContext}; endpoints must then use {@code https://},
     * and without it {@code http://}.
     */
    public EtcdLockBackendBuilder customizeClient(Consumer<ClientBuilder> customizer) {
        this.customizer = Objects.requireNonNull(customizer);
        return this;
    }

    /** Identity of this process in holder records (default {@code host:pid}). */
    public EtcdLockBackendBuilder instanceId(String instanceId) {
        this.instanceId = Objects.requireNonNull(instanceId);
        return this;
    }

    /**
     * Adds a receiver of what the backend sees of etcd (write round trips, leader changes, stretches
     * without a leader, lost and unrenewed session leases, the database's size and compaction), for
     * metrics; listeners are called in the order added, on the backend's threads.
     */
    public EtcdLockBackendBuilder eventListener(BackendEventListener listener) {
        this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
        return this;
    }

    BackendEventListener eventListener() {
        return switch (this.listeners.size()) {
            case 0 -> BackendEventListener.NONE;
            case 1 -> this.listeners.get(0);
            default -> BackendEventListener.composite(List.copyOf(this.listeners));
        };
    }

    /** Uses a client made elsewhere; the backend will not close it. */
    public EtcdLockBackendBuilder client(Client client) {
        Objects.requireNonNull(client);
        this.clientFactory = () -> client;
        return this;
    }

    /**
     * Builds the backend. It does not contact etcd; {@link EtcdLockBackend#verifyAccess} does.
     *
     * @throws IllegalArgumentException if the endpoints' scheme and the TLS settings disagree
     */
    public EtcdLockBackend build() {
        if (this.clientFactory != null) {
            // A client made elsewhere: its endpoints' scheme says whether it speaks TLS.
            boolean tls = this.endpoints.stream().anyMatch(endpoint -> endpoint.startsWith("https://"));
            return new EtcdLockBackend(this, this.clientFactory.get(), false, identity(tls));
        }
        ClientBuilder builder = Client.builder()
                .endpoints(this.endpoints.toArray(String[]::new))
                .connectTimeout(this.connectTimeout)
                // Our own requests are guarded and bounded; jetcd's retries would only outlive our timeouts.
                .retryMaxAttempts(0)
                // etcd refuses HTTP/2 pings on a connection with no call open (PermitWithoutStream is off)
                // and closes an idle client's connection with GOAWAY too_many_pings, failing whatever
                // starts at that moment. Ping only while calls are open; keep-alive rounds are calls.
                .keepaliveWithoutCalls(false)
                // Without it, a call waits for a connection that a failing TLS handshake never makes, and
                // ends as "no answer" with its cause lost. Failing at once carries the cause; calls that
                // are safe to repeat are repeated by this backend within their wait time.
                .waitForReady(false);
        if (this.user != null && this.password != null) {
            builder.user(EtcdCalls.bytes(this.user)).password(EtcdCalls.bytes(this.password));
        }
        if (this.customizer != null) {
            this.customizer.accept(builder);
        }
        boolean tls = builder.sslContext() != null;
        checkSchemes(this.endpoints, tls);
        return new EtcdLockBackend(this, builder.build(), true, identity(tls));
    }

    private EtcdRefusals.Identity identity(boolean tls) {
        return new EtcdRefusals.Identity(this.endpoints, this.user, this.namespace, tls);
    }

    /** jetcd speaks TLS whenever it has an sslContext, whatever the scheme says: make them agree. */
    static void checkSchemes(List<String> endpoints, boolean tls) {
        for (String endpoint : endpoints) {
            String scheme = URI.create(endpoint.trim()).getScheme();
            if ("https".equalsIgnoreCase(scheme) && !tls) {
                throw new IllegalArgumentException("etcd endpoint " + endpoint
                        + " uses https://, but TLS is not configured (the jetcd client has no sslContext);"
                        + " configure TLS, or use http:// for a plain-text etcd");
            }
            if ("http".equalsIgnoreCase(scheme) && tls) {
                throw new IllegalArgumentException("TLS is configured (the jetcd client has an sslContext), but etcd"
                        + " endpoint " + endpoint + " uses http://; use https:// for a TLS etcd, or drop TLS");
            }
        }
    }
}
