package dev.fencelock.metrics;

import dev.fencelock.AcquireOutcome;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.HotResource;
import dev.fencelock.LockClient;
import dev.fencelock.LockEventListener;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.ResourceName;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer meters for a {@link LockClient}. Names are fixed, because dashboards and alerts
 * depend on them:
 *
 * <ul>
 *   <li>{@code fencelock.acquire} (timer; tags {@code lock}, {@code outcome} = {@code acquired} |
 *       {@code timeout} | {@code conflict} | {@code unavailable} | {@code unknown} | {@code denied} |
 *       {@code error})
 *   <li>{@code fencelock.renew} (timer; tags {@code lock}, {@code outcome} = {@code renewed} |
 *       {@code lost} | {@code unavailable} | {@code denied} | {@code error})
 *   <li>{@code fencelock.release} (timer of the store call; tag {@code lock})
 *   <li>{@code fencelock.held} (long task timer; tag {@code lock})
 *   <li>{@code fencelock.active}, {@code fencelock.waiting} (gauges of this client)
 *   <li>{@code fencelock.lost}, {@code fencelock.lost.after.commit}, {@code fencelock.fencing.rejected}
 *       (counters; tag {@code lock}); a loss after the protected work committed counts in both
 *       {@code fencelock.lost} and {@code fencelock.lost.after.commit}
 *   <li>{@code fencelock.hot.waiters}, {@code fencelock.hot.waiting} (gauges; tag {@code rank} = 1..N):
 *       the client's {@linkplain LockClient#hotResources() hottest resources} by rank, never by name
 * </ul>
 *
 * The {@code lock} tag is the request's bounded {@linkplain dev.fencelock.LockRequest#lockName()
 * lock name}, never the resolved resource, so the number of time series stays small.
 * Re-entrant acquisitions are not timed: they make no store call.
 *
 * <p>An acquisition that found the lock held without queueing (a try) ends as {@code conflict}, one
 * that waited in vain as {@code timeout}; one whose write etcd never answered, so that it may have
 * been applied and is cleaned up behind it ({@link dev.fencelock.LockOutcomeUnknownException}), as {@code unknown}
 * rather than {@code unavailable}. The backend's own meters are {@link BackendMetrics}'.
 *
 * <p>The counters of losses and rejections exist at zero from the first time a lock name is used:
 * a series that is born at 1 shows no {@code increase()}, and an alert on it would miss the first
 * loss of each lock after every restart. So do the acquisitions that failed for want of the store
 * ({@code outcome} {@code unavailable} and {@code unknown}) and {@code fencelock.renew} with
 * {@code outcome=renewed}.
 */
public final class LockMetrics implements LockEventListener {

    private final MeterRegistry registry;

    private final Map<String, LongTaskTimer.Sample> holding = new ConcurrentHashMap<>();

    /** Lock names whose counters are registered already. */
    private final Set<String> named = ConcurrentHashMap.newKeySet();

    public LockMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * Registers the gauges of {@code client}: how many locks it holds, how many attempts wait, and its
     * hot resources by rank. A rank's series follows whichever resource holds the rank: the tag stays
     * bounded, and the names are in the {@code fencelock} endpoint ({@link LockClient#hotResources()}).
     */
    public void bindGauges(LockClient client) {
        Gauge.builder("fencelock.active", client, LockClient::heldCount)
                .description("Locks this instance holds")
                .register(this.registry);
        Gauge.builder("fencelock.waiting", client, LockClient::waitingCount)
                .description("Acquisitions of this instance waiting or in flight")
                .register(this.registry);
        for (int rank = 1; rank <= client.hotResourceRanks(); rank++) {
            int index = rank - 1;
            Gauge.builder("fencelock.hot.waiters", client, hot -> ranked(hot, index, HotResource::averageWaiting))
                    .description("Callers of this instance waiting, on average lately, for the resource of this rank"
                            + " among those it waits for most (its name is in the fencelock endpoint)")
                    .tag("rank", Integer.toString(rank))
                    .register(this.registry);
            Gauge.builder("fencelock.hot.waiting", client, hot -> ranked(hot, index, HotResource::waitingNow))
                    .description("Acquisitions of this instance in progress right now on the resource of this rank")
                    .tag("rank", Integer.toString(rank))
                    .register(this.registry);
        }
    }

    private static double ranked(LockClient client, int index, ToDoubleFunction<HotResource> value) {
        List<HotResource> ranking = client.hotResources();
        return (index < ranking.size()) ? value.applyAsDouble(ranking.get(index)) : 0;
    }

    @Override
    public void acquired(LockLease lease, String lockName, Duration waited, boolean reentered) {
        if (reentered) {
            return;
        }
        registerCounters(lockName);
        acquireTimer(lockName, "acquired").record(waited);
        LongTaskTimer.Sample sample = LongTaskTimer.builder("fencelock.held")
                .description("Locks held, and for how long")
                .tag("lock", lockName)
                .register(this.registry)
                .start();
        LongTaskTimer.Sample previous = this.holding.put(key(lease), sample);
        if (previous != null) {
            previous.stop();
        }
    }

    @Override
    public void acquireFailed(ResourceName resource, String lockName, Throwable cause, Duration waited) {
        acquireFailed(resource, lockName, cause, waited, true);
    }

    @Override
    public void acquireFailed(
            ResourceName resource, String lockName, Throwable cause, Duration waited, boolean queued) {
        registerCounters(lockName);
        acquireTimer(lockName, AcquireOutcome.of(cause, queued)).record(waited);
    }

    @Override
    public void released(LockLease lease, String lockName, Duration held, Duration took) {
        stopHolding(lease);
        Timer.builder("fencelock.release")
                .description("Time to delete a released lock from the store")
                .tag("lock", lockName)
                .register(this.registry)
                .record(took);
    }

    @Override
    public void renewed(LockLease lease, String lockName, Duration took, @Nullable Throwable failure) {
        // A renewal does not queue: its outcomes are the acquisition's, lost aside.
        String outcome = (failure == null)
                ? "renewed"
                : (failure instanceof LockLostException) ? "lost" : AcquireOutcome.of(failure, true);
        renewTimer(lockName, outcome).record(took);
    }

    @Override
    public void lost(LockLease lease, String lockName, LockLostException cause) {
        stopHolding(lease);
        lostCounter(lockName).increment();
    }

    /**
     * Counts a loss that came after the work the lock protected had committed: the caller got its
     * result. Every such loss is also counted in {@code fencelock.lost}.
     */
    @Override
    public void lostAfterCommit(LockLease lease, String lockName) {
        lostAfterCommitCounter(lockName).increment();
    }

    /** Counts a write the data store refused because a newer holder had already written. */
    public void fencingRejected(String lockName, FencingTokenRejectedException rejection) {
        rejectedCounter(lockName).increment();
    }

    /**
     * Registers the loss and rejection counters of {@code lockName} at zero, once; so too its
     * acquisitions that fail for want of the store ({@code unavailable}, {@code unknown}), whose
     * first failures an outage brings all at once, and its successful explicit renewals, so that an
     * application that never calls {@code renew()} shows zero renewals rather than no series at all.
     */
    private void registerCounters(String lockName) {
        if (this.named.add(lockName)) {
            lostCounter(lockName);
            lostAfterCommitCounter(lockName);
            rejectedCounter(lockName);
            acquireTimer(lockName, "unavailable");
            acquireTimer(lockName, "unknown");
            renewTimer(lockName, "renewed");
        }
    }

    private Timer renewTimer(String lockName, String outcome) {
        return Timer.builder("fencelock.renew")
                .description("Explicit lock renewals")
                .tag("lock", lockName)
                .tag("outcome", outcome)
                .register(this.registry);
    }

    private Counter lostCounter(String lockName) {
        return Counter.builder("fencelock.lost")
                .description("Locks lost while held")
                .tag("lock", lockName)
                .register(this.registry);
    }

    private Counter lostAfterCommitCounter(String lockName) {
        return Counter.builder("fencelock.lost.after.commit")
                .description("Locks lost after the work they protected had committed; the call returned its result")
                .tag("lock", lockName)
                .register(this.registry);
    }

    private Counter rejectedCounter(String lockName) {
        return Counter.builder("fencelock.fencing.rejected")
                .description("Writes refused by the data store because their fencing token was stale")
                .tag("lock", lockName)
                .register(this.registry);
    }

    private Timer acquireTimer(String lockName, String outcome) {
        return Timer.builder("fencelock.acquire")
                .description("Lock acquisitions, including the time spent waiting")
                .tag("lock", lockName)
                .tag("outcome", outcome)
                .register(this.registry);
    }

    private void stopHolding(LockLease lease) {
        LongTaskTimer.Sample sample = this.holding.remove(key(lease));
        if (sample != null) {
            sample.stop();
        }
    }

    private static String key(LockLease lease) {
        return lease.resource() + '\u0000' + lease.requestId();
    }
}
