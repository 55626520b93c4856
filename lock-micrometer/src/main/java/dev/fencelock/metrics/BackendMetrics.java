package dev.fencelock.metrics;

import dev.fencelock.spi.BackendEventListener;
import dev.fencelock.spi.StoreCapacity;
import dev.fencelock.spi.WriteOperation;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

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
 *   <li>{@code fencelock.store.size}, {@code fencelock.store.size.in.use}, {@code fencelock.store.quota}
 *       (gauges, bytes): the largest member's database, the part of it in use, and the quota past which
 *       the store refuses writes
 *   <li>{@code fencelock.store.compaction.revisions} (gauge): revisions of history kept since the last
 *       compaction; {@code fencelock.store.compaction.age} (gauge, seconds): since this client saw the
 *       last compaction (since its first check when it saw none: a lower bound)
 *   <li>{@code fencelock.store.alarms} (gauge; tag {@code alarm} = {@code nospace} | {@code corrupt} |
 *       any other the store raises, lower case): members with that alarm raised
 * </ul>
 *
 * Every meter but the store's exists from the start, at zero, so that an alert on its increase sees
 * the first event. The {@code fencelock.store.*} gauges appear with the backend's first capacity
 * check (with etcd: the first health check, or one check interval after startup); a store that
 * reports no capacity (in-memory) has none.
 */
public final class BackendMetrics implements BackendEventListener {

    private final Map<WriteOperation, Timer> commits = new EnumMap<>(WriteOperation.class);

    private final Counter leaderChanges;

    private final Timer leaderAbsent;

    /** {@link System#nanoTime()} when the stretch without a leader under way began; 0 when there is none. */
    private final AtomicLong absentSince = new AtomicLong();

    private final Counter leasesExpired;

    private final Counter renewalsFailed;

    private final MeterRegistry registry;

    /** The last capacity check and when it arrived ({@link System#nanoTime()}); null before the first. */
    private final AtomicReference<@Nullable CapacityCheck> capacity = new AtomicReference<>();

    /** Alarm types with a registered gauge, lower case. */
    private final Set<String> alarmGauges = ConcurrentHashMap.newKeySet();

    private record CapacityCheck(StoreCapacity capacity, long atNanos) {}

    public BackendMetrics(MeterRegistry registry) {
        this.registry = registry;
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

    @Override
    public void capacityChecked(StoreCapacity capacity) {
        CapacityCheck previous = this.capacity.getAndSet(new CapacityCheck(capacity, System.nanoTime()));
        if (previous == null) {
            registerCapacityGauges();
        }
        for (StoreCapacity.Alarm alarm : capacity.alarms()) {
            registerAlarmGauge(alarm.type().toLowerCase(Locale.ROOT));
        }
    }

    private void registerCapacityGauges() {
        Gauge.builder("fencelock.store.size", this, metrics -> metrics.capacityValue(StoreCapacity::sizeBytes))
                .description("Size of the lock store's largest member database (etcd's dbSize)")
                .baseUnit("bytes")
                .register(this.registry);
        Gauge.builder(
                        "fencelock.store.size.in.use",
                        this,
                        metrics -> metrics.capacityValue(StoreCapacity::sizeInUseBytes))
                .description("Part of that database in use; the rest only defragmentation gives back")
                .baseUnit("bytes")
                .register(this.registry);
        Gauge.builder("fencelock.store.quota", this, metrics -> metrics.capacityValue(StoreCapacity::quotaBytes))
                .description("Database size past which the store refuses writes (etcd's --quota-backend-bytes)")
                .baseUnit("bytes")
                .register(this.registry);
        Gauge.builder(
                        "fencelock.store.compaction.revisions",
                        this,
                        metrics -> metrics.capacityValue(StoreCapacity::revisionsSinceCompaction))
                .description("Revisions of history the store keeps since its last compaction")
                .register(this.registry);
        Gauge.builder("fencelock.store.compaction.age", this, BackendMetrics::compactionAge)
                .description("Time since this client saw the store's last compaction (since its first check if none)")
                .baseUnit("seconds")
                .register(this.registry);
        registerAlarmGauge("nospace");
        registerAlarmGauge("corrupt");
    }

    private void registerAlarmGauge(String type) {
        if (this.alarmGauges.add(type)) {
            Gauge.builder(
                            "fencelock.store.alarms",
                            this,
                            metrics -> metrics.capacityValue(capacity -> capacity.alarms().stream()
                                    .filter(alarm -> alarm.type().equalsIgnoreCase(type))
                                    .count()))
                    .description("Members of the lock store that raised this alarm; it refuses writes meanwhile")
                    .tag("alarm", type)
                    .register(this.registry);
        }
    }

    private double capacityValue(ToDoubleFunction<StoreCapacity> value) {
        CapacityCheck check = this.capacity.get();
        return (check != null) ? value.applyAsDouble(check.capacity()) : Double.NaN;
    }

    private double compactionAge() {
        CapacityCheck check = this.capacity.get();
        if (check == null) {
            return Double.NaN;
        }
        long sinceCheck = System.nanoTime() - check.atNanos();
        return (check.capacity().sinceCompaction().toNanos() + sinceCheck) / (double) TimeUnit.SECONDS.toNanos(1);
    }

    private double currentAbsence() {
        long since = this.absentSince.get();
        return (since == 0) ? 0 : (System.nanoTime() - since) / (double) TimeUnit.SECONDS.toNanos(1);
    }
}
