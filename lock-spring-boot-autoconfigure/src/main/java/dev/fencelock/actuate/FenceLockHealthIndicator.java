package dev.fencelock.actuate;

import dev.fencelock.LockClient;
import dev.fencelock.spi.BackendHealth;
import dev.fencelock.spi.StoreCapacity;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.util.Assert;

/**
 * Health of the lock store behind a {@link LockClient}: UP when the store answers a linearizable
 * read in time (for etcd: a quorum is reachable), DOWN otherwise. Details name the endpoints,
 * members, leader, this instance's session leases and how many locks it holds.
 *
 * <p>The store's capacity refines UP: {@link #WARNING} when its database nears the quota (or its
 * history was not compacted for longer than the {@link CapacityThresholds} allow), and DOWN while it
 * has an alarm raised (etcd's {@code NOSPACE}, {@code CORRUPT}): it then refuses the writes that take
 * locks. WARNING is a status of its own: Boot answers it with HTTP 200, and its aggregate leaves it
 * out unless {@code management.endpoint.health.status.order} lists it (e.g.
 * {@code down,out-of-service,warning,up,unknown}).
 *
 * <p>Probes come from load balancers and orchestrators on HTTP threads, often several at once and
 * exactly when etcd is in trouble. So one check is bounded by a timeout, its result is reused for a
 * while, and callers arriving during a check share it instead of each sending reads to etcd. A
 * caller never waits longer than the timeout; a check still running then reports DOWN to it.
 */
public final class FenceLockHealthIndicator implements HealthIndicator {

    /** The store answers, but runs out of room: see {@link CapacityThresholds}. */
    public static final Status WARNING = new Status("WARNING", "The lock store is running out of room");

    /** Extra time after the timeout before a check that the store never finished counts as DOWN. */
    private static final Duration GRACE = Duration.ofMillis(500);

    private final LockClient client;

    private final Duration timeout;

    private final long cacheTtlNanos;

    private final LongSupplier nanoClock;

    private final CapacityThresholds thresholds;

    private final AtomicReference<@Nullable Check> latest = new AtomicReference<>();

    /**
     * Creates an indicator for {@code client}.
     *
     * @param client the lock client whose store is checked
     * @param timeout longest wait for the store, and for a caller; positive
     * @param cacheTtl how long a finished check is reused; zero checks on every call (concurrent
     *     callers still share one check)
     */
    public FenceLockHealthIndicator(LockClient client, Duration timeout, Duration cacheTtl) {
        this(client, timeout, cacheTtl, CapacityThresholds.DEFAULT);
    }

    /**
     * Creates an indicator for {@code client} that warns by {@code thresholds}.
     *
     * @param client the lock client whose store is checked
     * @param timeout longest wait for the store, and for a caller; positive
     * @param cacheTtl how long a finished check is reused
     * @param thresholds when the store's capacity turns the health to {@link #WARNING}
     */
    public FenceLockHealthIndicator(
            LockClient client, Duration timeout, Duration cacheTtl, CapacityThresholds thresholds) {
        this(client, timeout, cacheTtl, thresholds, System::nanoTime);
    }

    FenceLockHealthIndicator(
            LockClient client,
            Duration timeout,
            Duration cacheTtl,
            CapacityThresholds thresholds,
            LongSupplier nanoClock) {
        Assert.isTrue(!timeout.isNegative() && !timeout.isZero(), "timeout must be positive");
        Assert.isTrue(!cacheTtl.isNegative(), "cacheTtl must not be negative");
        this.client = client;
        this.timeout = timeout;
        this.cacheTtlNanos = cacheTtl.toNanos();
        this.nanoClock = nanoClock;
        this.thresholds = thresholds;
    }

    @Override
    public Health health() {
        Check check = currentCheck();
        try {
            return check.result.get(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException ex) {
            return noAnswer().build();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return base(Health.down()).withDetail("error", "interrupted").build();
        } catch (ExecutionException ex) {
            // The result future is only ever completed normally; this is a safety net.
            return base(Health.down())
                    .withDetail("error", String.valueOf(ex.getCause()))
                    .build();
        }
    }

    /** The check to report: a fresh finished one, the one in flight, or a new one this call starts. */
    private Check currentCheck() {
        while (true) {
            long now = this.nanoClock.getAsLong();
            Check current = this.latest.get();
            if (current != null && current.isFresh(now)) {
                return current;
            }
            Check next = new Check();
            if (this.latest.compareAndSet(current, next)) {
                next.start();
                return next;
            }
        }
    }

    private Health toHealth(@Nullable BackendHealth health, @Nullable Throwable failure) {
        if (health == null) {
            if (failure instanceof CompletionException && failure.getCause() != null) {
                failure = failure.getCause();
            }
            if (failure instanceof TimeoutException) {
                return noAnswer().build();
            }
            return base(Health.down())
                    .withDetail("error", String.valueOf(failure))
                    .build();
        }
        Health.Builder builder = base(health.up() ? Health.up() : Health.down());
        builder.withDetails(health.details());
        StoreCapacity capacity = health.capacity();
        if (health.up() && capacity != null) {
            judge(builder, capacity);
        }
        // What the operator sees in the fencelock endpoint: this client's locks.
        return builder.withDetail("heldLocks", this.client.heldCount()).build();
    }

    /** DOWN while the store has an alarm raised, WARNING past a threshold; UP stays UP otherwise. */
    private void judge(Health.Builder builder, StoreCapacity capacity) {
        if (!capacity.alarms().isEmpty()) {
            builder.down()
                    .withDetail(
                            "error",
                            "the lock store raised "
                                    + capacity.alarms().stream()
                                            .map(alarm -> alarm.type() + " (member " + alarm.member() + ")")
                                            .distinct()
                                            .collect(Collectors.joining(", "))
                                    + ": it refuses writes, so no lock can be taken until an operator frees space"
                                    + " and disarms the alarm");
            return;
        }
        List<String> warnings = this.thresholds.warnings(capacity);
        if (!warnings.isEmpty()) {
            builder.status(WARNING).withDetail("warnings", warnings);
        }
    }

    private Health.Builder noAnswer() {
        return base(Health.down())
                .withDetail("error", "the lock store did not answer within " + this.timeout.toMillis() + " ms");
    }

    private Health.Builder base(Health.Builder builder) {
        return builder.withDetail("backend", this.client.backend().describe())
                .withDetail("heldLocks", this.client.heldCount());
    }

    /** One check of the store, shared by every caller that arrives while it runs or is fresh. */
    private final class Check {

        private final CompletableFuture<Health> result = new CompletableFuture<>();

        private volatile long finishedAt;

        boolean isFresh(long now) {
            return !this.result.isDone() || now - this.finishedAt < FenceLockHealthIndicator.this.cacheTtlNanos;
        }

        void start() {
            Duration timeout = FenceLockHealthIndicator.this.timeout;
            CompletableFuture<BackendHealth> probe;
            try {
                probe = FenceLockHealthIndicator.this
                        .client
                        .administration()
                        .map(administration -> administration.health(timeout))
                        .orElseGet(() -> CompletableFuture.failedFuture(new IllegalStateException(
                                "the lock store offers no health check (it does not implement LockAdministration)")));
            } catch (RuntimeException ex) {
                probe = CompletableFuture.failedFuture(ex);
            }
            // A backend that breaks its "bounded by the timeout" promise must not pin a check forever.
            probe.orTimeout(timeout.plus(GRACE).toNanos(), TimeUnit.NANOSECONDS)
                    .handle(FenceLockHealthIndicator.this::toHealth)
                    .whenComplete((health, failure) -> {
                        this.finishedAt = FenceLockHealthIndicator.this.nanoClock.getAsLong();
                        this.result.complete(
                                (health != null)
                                        ? health
                                        : Health.down()
                                                .withDetail("error", String.valueOf(failure))
                                                .build());
                    });
        }
    }
}
