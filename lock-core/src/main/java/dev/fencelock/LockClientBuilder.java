package dev.fencelock;

import dev.fencelock.spi.LockBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/** Builds a {@link LockClient}; start with {@link LockClient#builder(LockBackend)}. */
public final class LockClientBuilder {

    private final LockBackend backend;

    private Duration defaultLeaseTtl = Duration.ofSeconds(30);

    private Duration defaultWaitTimeout = Duration.ofSeconds(10);

    private Duration maxLeaseTtl = Duration.ofMinutes(10);

    private Duration maxWaitTimeout = Duration.ofMinutes(5);

    private Duration tryTimeout = Duration.ofSeconds(5);

    private int maxWaitersPerResource = 1_000;

    private int maxResourceLength = ResourceName.DEFAULT_MAX_LENGTH;

    private int hotResources = 10;

    private Duration hotResourcesHalfLife = Duration.ofMinutes(1);

    private final List<LockEventListener> listeners = new ArrayList<>();

    private @Nullable Executor callbackExecutor;

    LockClientBuilder(LockBackend backend) {
        this.backend = Objects.requireNonNull(backend, "backend must not be null");
    }

    /** Lease TTL of requests that set none (30 s). */
    public LockClientBuilder defaultLeaseTtl(Duration ttl) {
        this.defaultLeaseTtl = positive(ttl, "defaultLeaseTtl");
        return this;
    }

    /** Wait timeout of requests that set none (10 s); zero means try once. */
    public LockClientBuilder defaultWaitTimeout(Duration timeout) {
        this.defaultWaitTimeout = notNegative(timeout, "defaultWaitTimeout");
        return this;
    }

    /** Largest lease TTL a request may ask for (10 min). */
    public LockClientBuilder maxLeaseTtl(Duration ttl) {
        this.maxLeaseTtl = positive(ttl, "maxLeaseTtl");
        return this;
    }

    /** Largest wait timeout a request may ask for (5 min). */
    public LockClientBuilder maxWaitTimeout(Duration timeout) {
        this.maxWaitTimeout = notNegative(timeout, "maxWaitTimeout");
        return this;
    }

    /** Time a try-lock (no waiting) may take for its round trip to the store (5 s). */
    public LockClientBuilder tryTimeout(Duration timeout) {
        this.tryTimeout = positive(timeout, "tryTimeout");
        return this;
    }

    /** How many callers of this client may wait for one resource at once (1000). */
    public LockClientBuilder maxWaitersPerResource(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("maxWaitersPerResource must be at least 1, got " + max);
        }
        this.maxWaitersPerResource = max;
        return this;
    }

    /** Longest resource name accepted, in characters (255). */
    public LockClientBuilder maxResourceLength(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("maxResourceLength must be at least 1, got " + max);
        }
        this.maxResourceLength = max;
        return this;
    }

    /**
     * How many of the resources its callers wait for most the client ranks ({@link
     * LockClient#hotResources()}, 10); zero keeps no ranking. It keeps eight counters per rank (at
     * least 64), whatever the number of resources.
     */
    public LockClientBuilder hotResources(int size) {
        if (size < 0 || size > 1_000) {
            throw new IllegalArgumentException("hotResources must be between 0 and 1000, got " + size);
        }
        this.hotResources = size;
        return this;
    }

    /** How long until a wait counts half in the hot-resource ranking (1 min): how far back the ranking looks. */
    public LockClientBuilder hotResourcesHalfLife(Duration halfLife) {
        this.hotResourcesHalfLife = positive(halfLife, "hotResourcesHalfLife");
        return this;
    }

    /** Adds a receiver of lock events, for metrics and audit; listeners are called in the order added. */
    public LockClientBuilder eventListener(LockEventListener listener) {
        this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
        return this;
    }

    /**
     * Runs {@link LockLease#onLost} listeners and the lost event of {@link LockEventListener}s
     * (default: one thread of the client's own). Never the thread that detects a loss: that is a
     * backend thread that also keeps leases alive, and application code must not be able to stall it.
     */
    public LockClientBuilder callbackExecutor(Executor executor) {
        this.callbackExecutor = Objects.requireNonNull(executor, "executor must not be null");
        return this;
    }

    /**
     * Builds the client.
     *
     * @throws IllegalArgumentException when the defaults break the bounds
     */
    public LockClient build() {
        LockClientSettings settings = new LockClientSettings(
                this.defaultLeaseTtl,
                this.defaultWaitTimeout,
                this.maxLeaseTtl,
                this.maxWaitTimeout,
                this.tryTimeout,
                this.maxWaitersPerResource,
                this.maxResourceLength);
        LockEventListener events = switch (this.listeners.size()) {
            case 0 -> LockEventListener.NONE;
            case 1 -> this.listeners.get(0);
            default -> LockEventListener.composite(this.listeners);
        };
        HotResources hot = new HotResources(this.hotResources, this.hotResourcesHalfLife, System::nanoTime);
        return (this.callbackExecutor != null)
                ? new LockClient(this.backend, settings, events, hot, this.callbackExecutor, null)
                : LockClient.withOwnCallbackThread(this.backend, settings, events, hot);
    }

    private static Duration positive(Duration value, String name) {
        Objects.requireNonNull(value, name + " must not be null");
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
        return value;
    }

    private static Duration notNegative(Duration value, String name) {
        Objects.requireNonNull(value, name + " must not be null");
        if (value.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative, got " + value);
        }
        return value;
    }
}
