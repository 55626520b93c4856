package dev.fencelock.verification;

import dev.fencelock.verification.fault.FaultKind;
import dev.fencelock.verification.worker.Guard;
import dev.fencelock.verification.worker.Store;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

/**
 * One run of the campaign.
 *
 * @param name the run's name and directory, such as {@code fenced-zombie}
 * @param store the store the locks live in; every fault must have a meaning on it
 * @param guard how the workers fence their writes; {@link Guard#OFF} is the control run
 * @param faults the faults injected one after the other, in turn
 * @param mixed whether each cycle instead injects a random cluster fault and a random client fault at once
 * @param workers worker processes
 * @param threadsPerWorker operations each worker runs at once
 * @param keys counters, and so locks; few, so that contention is real
 * @param leaseTtl each lock's lease (on ZooKeeper, its session's timeout); short, so that a paused holder's lease
 *     runs out quickly
 * @param waitTimeout how long an acquisition waits
 * @param thinkMax the longest think time between reading and writing a counter
 * @param warmUp quiet time before the first fault
 * @param quiet quiet time after each fault, once the cluster is healthy again
 * @param maxCycles the run ends after this many fault cycles...
 * @param okTarget ...or once the workers acknowledged this many increments...
 * @param maxDuration ...or after this long, whichever comes first
 * @param out the directory the run's directory is created in
 * @param seed seeds the workers' and the schedule's choices
 */
public record CampaignSettings(
        String name,
        Store store,
        Guard guard,
        List<FaultKind> faults,
        boolean mixed,
        int workers,
        int threadsPerWorker,
        int keys,
        Duration leaseTtl,
        Duration waitTimeout,
        Duration thinkMax,
        Duration warmUp,
        Duration quiet,
        int maxCycles,
        long okTarget,
        Duration maxDuration,
        Path out,
        long seed) {

    /** Refuses a fault that has no meaning on the store, before anything starts. */
    public CampaignSettings {
        List<FaultKind> elsewhere =
                faults.stream().filter(kind -> !kind.runsOn(store)).toList();
        if (!elsewhere.isEmpty()) {
            throw new IllegalArgumentException("run " + name + ": " + elsewhere + " have no meaning on " + store.label()
                    + "; on " + store.label() + " the faults are " + FaultKind.on(store));
        }
    }

    /** A run on etcd with the campaign's usual workload: 3 workers of 2 threads on 3 keys, 2 s leases. */
    public static CampaignSettings of(String name, Guard guard, List<FaultKind> faults, Path out) {
        return of(name, Store.ETCD, guard, faults, out);
    }

    /** A run on {@code store} with the campaign's usual workload: 3 workers of 2 threads on 3 keys, 2 s leases. */
    public static CampaignSettings of(String name, Store store, Guard guard, List<FaultKind> faults, Path out) {
        return new CampaignSettings(
                name,
                store,
                guard,
                List.copyOf(faults),
                false,
                3,
                2,
                3,
                Duration.ofSeconds(2),
                Duration.ofSeconds(3),
                Duration.ofMillis(4),
                Duration.ofSeconds(3),
                Duration.ofSeconds(3),
                faults.size(),
                Long.MAX_VALUE,
                Duration.ofMinutes(5),
                out,
                42);
    }

    /** The same run, ending after {@code okTarget} acknowledged increments (or {@code maxDuration}). */
    public CampaignSettings untilAcknowledged(long okTarget, Duration maxDuration) {
        return new CampaignSettings(
                name,
                store,
                guard,
                faults,
                mixed,
                workers,
                threadsPerWorker,
                keys,
                leaseTtl,
                waitTimeout,
                thinkMax,
                warmUp,
                quiet,
                Integer.MAX_VALUE,
                okTarget,
                maxDuration,
                out,
                seed);
    }

    /** The same run, ending after {@code cycles} fault cycles. */
    public CampaignSettings cycles(int cycles) {
        return new CampaignSettings(
                name,
                store,
                guard,
                faults,
                mixed,
                workers,
                threadsPerWorker,
                keys,
                leaseTtl,
                waitTimeout,
                thinkMax,
                warmUp,
                quiet,
                cycles,
                Long.MAX_VALUE,
                maxDuration,
                out,
                seed);
    }

    /** The same run, each cycle injecting a random cluster fault and a random client fault together. */
    public CampaignSettings mixing() {
        return new CampaignSettings(
                name,
                store,
                guard,
                faults,
                true,
                workers,
                threadsPerWorker,
                keys,
                leaseTtl,
                waitTimeout,
                thinkMax,
                warmUp,
                quiet,
                maxCycles,
                okTarget,
                maxDuration,
                out,
                seed);
    }

    /** Whether some fault needs the workers' calls to pass a gRPC proxy. */
    boolean needsGrpcHop() {
        return faults.stream().anyMatch(kind -> kind.needsGrpcHop(store))
                || (mixed && FaultKind.LOST_RESPONSES.needsGrpcHop(store));
    }

    /** The keys, {@code k0} to {@code k<n-1>}. */
    List<String> keyNames() {
        return IntStream.range(0, keys).mapToObj(i -> "k" + i).toList();
    }
}
