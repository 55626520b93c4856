package dev.fencelock.benchmarks;

import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.etcd.EtcdMember;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 5, "degraded": the design brief's workload (scenario 1) at its first rate, on a fresh
 * three-member cluster with one follower down before the measured window, while etcd's history is
 * compacted every few seconds and each running member is defragmented once during the window. The
 * brief asks for exactly this: "verify 200 ms p99 while one replica has failed and log compaction
 * runs at the same time".
 *
 * <p>The follower is killed with {@code SIGKILL} by default ({@code -Dbench.degraded.failure=kill}):
 * a crashed member, whose port refuses connections, so the client's round-robin stops sending to it
 * and what is measured is the cluster running on two of three members, each commit needing both.
 * {@code -Dbench.degraded.failure=pause} freezes it with {@code SIGSTOP} instead (a hung machine):
 * its connections stay open and every request sent to it waits for FenceLock's attempt timeout (2 s)
 * before it is resent, which measures how the client gets past a hung member rather than the cluster.
 *
 * <p>To tell the causes apart, {@code -Dbench.degraded.failure=none} keeps all three members and
 * {@code -Dbench.degraded.maintenance=false} runs no compaction or defragmentation.
 *
 * <p>A light contended load runs beside the workload to check, where compaction can break watches,
 * that no key is held twice and tokens only grow ({@link ContendedKeysCheck}).
 */
public final class DegradedScenario {

    private static final Logger logger = LoggerFactory.getLogger(DegradedScenario.class);

    static final String FAILURE_PROPERTY = "bench.degraded.failure";

    static final String MAINTENANCE_PROPERTY = "bench.degraded.maintenance";

    private DegradedScenario() {}

    /**
     * What scenario 5 measured.
     *
     * @param failedMember the follower that was down for the whole window, {@code none} if none was
     * @param failure how it was taken down: {@code SIGKILL}, {@code SIGSTOP}, or {@code none}
     * @param maintenance whether compactions and defragmentations ran
     * @param leader the leader during the run
     * @param workload the design brief's workload, as scenario 1 reports it
     * @param compactions every compaction during the window
     * @param defrags every defragmentation during the window
     * @param compactionPauses what etcd measured of the compactions, over the running members
     * @param check the contended-keys safety check beside the workload
     * @param slowestSeconds the window's slowest seconds, by their worst acquisition
     * @param loadBefore the machine's load average (1/5/15 min) when the scenario started
     * @param loadAfter the same when it ended
     */
    public record Result(
            String failedMember,
            String failure,
            boolean maintenance,
            String leader,
            DesignWorkloadScenario.Result workload,
            List<CompactionAndDefrag.Run> compactions,
            List<CompactionAndDefrag.Run> defrags,
            CompactionAndDefrag.Pauses compactionPauses,
            ContendedKeysCheck.Result check,
            List<LatencyTimeline.Second> slowestSeconds,
            String loadBefore,
            String loadAfter) {}

    public static Result run(BenchSettings settings) throws Exception {
        String loadBefore = BenchmarkMain.loadAverage();
        String failure = System.getProperty(FAILURE_PROPERTY, "kill").toLowerCase(Locale.ROOT);
        boolean maintain = !"false".equalsIgnoreCase(System.getProperty(MAINTENANCE_PROPERTY, "true"));
        int rate = settings.rates().get(0);
        try (EtcdCluster cluster = EtcdCluster.start(3)) {
            EtcdMember failed =
                    "none".equals(failure) ? null : cluster.followers().get(0);
            if (failed != null) {
                logger.info("Scenario 5: {} follower {}", failure, failed.name());
                if ("pause".equals(failure)) {
                    failed.pause();
                } else {
                    failed.kill();
                }
            }
            EtcdMember leader = cluster.awaitLeader(Duration.ofSeconds(30));
            List<EtcdMember> running = cluster.members().stream()
                    .filter(member -> member != failed)
                    .toList();
            DesignWorkloadScenario.awaitEtcdRecovered(
                    running.stream().map(EtcdMember::clientEndpoint).toList());
            LatencyTimeline timeline = new LatencyTimeline(settings.window().toSeconds() + 1);
            CompactionAndDefrag maintenance =
                    new CompactionAndDefrag(running, settings.compactEvery(), settings.window());
            DesignWorkloadScenario.WindowHooks hooks = new DesignWorkloadScenario.WindowHooks() {
                @Override
                public void windowStarted(long windowStart) {
                    timeline.start(windowStart);
                    if (maintain) {
                        maintenance.windowStarted(windowStart);
                    }
                }

                @Override
                public void windowEnded() {
                    maintenance.windowEnded();
                }

                @Override
                public void acquired(long intended, long latency) {
                    timeline.record(intended, latency);
                }
            };
            DesignWorkloadScenario.Result workload;
            ContendedKeysCheck.Result checked;
            // The application lists every member, the failed one too, as its configuration would.
            try (ContendedKeysCheck check = new ContendedKeysCheck(cluster.endpoints(), "/bench-s5-check")) {
                check.start();
                workload = DesignWorkloadScenario.run(cluster, settings, rate, Double.NaN, "/bench-s5", hooks);
                checked = check.stop();
            } finally {
                maintenance.finish();
            }
            Result result = new Result(
                    (failed != null) ? failed.name() : "none",
                    (failed == null) ? "none" : "pause".equals(failure) ? "SIGSTOP" : "SIGKILL",
                    maintain,
                    leader.name(),
                    workload,
                    maintenance.compactions(),
                    maintenance.defrags(),
                    maintenance.pauses(),
                    checked,
                    timeline.slowest(5),
                    loadBefore,
                    BenchmarkMain.loadAverage());
            logger.info(
                    "Scenario 5: acquire p99 {} ms, {} failed, {} compactions, {} defrags, check {}",
                    String.format(Locale.ROOT, "%.1f", Reports.millis(workload.acquire(), 99)),
                    workload.errors(),
                    result.compactions().size(),
                    result.defrags().size(),
                    checked);
            return result;
        }
    }
}
