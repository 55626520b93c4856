package dev.fencelock.metrics;

import dev.fencelock.spi.BackendEventListener;
import dev.fencelock.spi.WriteOperation;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Micrometer meters for what a lock backend sees of its store, as a {@link BackendEventListener}
 * (pass it to {@code EtcdLockBackend.builder().eventListener(...)}). Names are fixed, because
 * dashboards and alerts depend on them:
 *
 * <ul>
 *   <li>{@code fencelock.commit} (timer; tag {@code operation} = {@code acquire} | {@code release} |
 *       {@code abandon} | {@code renew}): each write's round trip, from sending it to etcd's answer
 *   <li>{@code fencelock.leader.changes} (counter): answers that carried a larger raft term than any
 *       before
 *   <li>{@code fencelock.leader.absent} (timer): each ended stretch in which writes could not commit
 *       for want of a leader, as this client saw it; {@code fencelock.leader.absent.current} (gauge,
 *       seconds) the one under way, zero when there is none
 *   <li>{@code fencelock.lease.expired} (counter): session leases that expired or that etcd no longer
 *       knew, each losing every lock on it
 *   <li>{@code fencelock.lease.renewal.failed} (counter): keep-alives and renewals that failed, even
 *       when a later one succeeded in time
 * </ul>
 *
 * Every meter exists from the start, at zero, so that an alert on its increase sees the first event.
 */
public final class BackendMetrics implements BackendEventListener {

    private final Map<WriteOperation, Timer> commits = new EnumMap<>(WriteOperation.class);

    private final Counter leaderChanges;

    private final Timer leaderAbsent;

    /** {@link System#nanoTime()} when the stretch without a leader under way began; 0 when there is none. */
    private final AtomicLong absentSince = new AtomicLong();

    private final Counter leasesExpired;

    private final Counter renewalsFailed;

    public BackendMetrics(MeterRegistry registry) {
        for (WriteOperation operation : WriteOperation.values()) {
            this.commits.put(
                    operation,
                    Timer.builder("fencelock.commit")
                            .description("Round trips of writes to the lock store, from sending to the answer")
                            .tag("operation", operation.tagValue())
                            .register(registry));
        }
        this.leaderChanges = Counter.builder("fencelock.leader.changes")
                .description("Leader changes seen in the lock store's answers (a larger raft term than any before)")
                .register(registry);
        this.leaderAbsent = Timer.builder("fencelock.leader.absent")
                .description("Stretches in which writes could not commit for want of a leader, as this client saw it")
                .register(registry);
        Gauge.builder("fencelock.leader.absent.current", this, BackendMetrics::currentAbsence)
                .description("How long writes have not been able to commit for want of a leader; 0 when they can")
                .baseUnit("seconds")
                .register(registry);
        this.leasesExpired = Counter.builder("fencelock.lease.expired")
                .description("Session leases that expired or that the store no longer knew; their locks were lost")
                .register(registry);
        this.renewalsFailed = Counter.builder("fencelock.lease.renewal.failed")
                .description("Keep-alives and renewals of session leases that failed, even if a later one succeeded")
                .register(registry);
    }

    @Override
    public void committed(WriteOperation operation, Duration took) {
        this.commits.get(operation).record(took);
    }

    @Override
    public void leaderChanged(long previousTerm, long term) {
        this.leaderChanges.increment();
    }

    @Override
    public void leaderLost(Duration since) {
        long start = System.nanoTime() - since.toNanos();
        // Zero means "none": a start that happens to be zero is moved by a nanosecond.
        this.absentSince.compareAndSet(0, (start == 0) ? 1 : start);
    }

    @Override
    public void leaderFound(Duration withoutLeader) {
        this.absentSince.set(0);
        this.leaderAbsent.record(withoutLeader);
    }

    @Override
    public void leaseExpired(int locks) {
        this.leasesExpired.increment();
    }

    @Override
    public void renewalFailed(Throwable cause) {
        this.renewalsFailed.increment();
    }

    private double currentAbsence() {
        long since = this.absentSince.get();
        return (since == 0) ? 0 : (System.nanoTime() - since) / (double) TimeUnit.SECONDS.toNanos(1);
    }
}
