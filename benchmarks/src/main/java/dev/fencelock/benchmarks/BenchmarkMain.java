package dev.fencelock.benchmarks;

import dev.fencelock.test.redis.RedisServer;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs every scenario against a fresh local etcd cluster and Redis and writes
 * {@code results.md} and {@code benchmarks-latency.png} to {@code -Dbench.out} (default
 * {@code target/benchmarks}). {@code -Dbench.quick=true} runs each case for about a second;
 * {@code -Dbench.scenarios=1,2} runs only some ({@code degraded} is another name of 5).
 * {@code -Dbench.stores=zookeeper} runs the comparison of stores instead ({@link StoresComparison}).
 */
public final class BenchmarkMain {

    private static final Logger logger = LoggerFactory.getLogger(BenchmarkMain.class);

    public static final String CHART = "benchmarks-latency.png";

    public static final String RESULTS = "results.md";

    private BenchmarkMain() {}

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        BenchSettings settings = BenchSettings.fromSystemProperties();
        String stores = System.getProperty("bench.stores", "");
        if (stores.equals("zookeeper")) {
            StoresComparison.Result result = StoresComparison.run(settings);
            StoresReport.write(result, settings.out().resolve(RESULTS));
            System.out.println(StoresReport.markdown(result));
            System.exit(0);
        } else if (!stores.isEmpty()) {
            throw new IllegalArgumentException("-Dbench.stores=" + stores + ": only 'zookeeper' is known");
        }
        BenchmarkReport report = run(settings, scenarios());
        System.out.println(ReportWriter.markdown(report));
        // jetcd and Redisson leave non-daemon threads behind on some paths; the run is over.
        System.exit(0);
    }

    static Set<String> scenarios() {
        return Set.of(System.getProperty("bench.scenarios", "1,2,3,4,5,6,7")
                .replace("degraded", "5")
                .split(","));
    }

    /** Runs the chosen scenarios ("1" to "7") and writes the report files. */
    public static BenchmarkReport run(BenchSettings settings, Set<String> scenarios) throws Exception {
        System.setProperty("java.awt.headless", "true");
        String loadBefore = loadAverage();
        Instant started = Instant.now();
        List<DesignWorkloadScenario.Result> workload = List.of();
        List<String> failures = new ArrayList<>();
        List<CaseResult> uncontended = List.of();
        List<CaseResult> hotKey = List.of();
        List<CaseResult> relock = List.of();
        List<CaseResult> zipf = List.of();
        FailoverScenario.Result failover = null;
        DegradedScenario.Result degraded = null;
        boolean sharedCluster = scenarios.stream().anyMatch(Set.of("1", "2", "3", "4", "6", "7")::contains);
        if (sharedCluster) {
            try (BenchEnvironment env = BenchEnvironment.start()) {
                logger.info("etcd {} and {} started", env.endpoints(), env.redis());
                if (scenarios.contains("1")) {
                    try {
                        workload = DesignWorkloadScenario.run(env, settings);
                    } catch (Exception ex) {
                        failures.add("scenario 1 failed: " + ex);
                        logger.error("Scenario 1 failed", ex);
                    }
                }
                if (scenarios.contains("1") && !settings.quick()) {
                    // Scenario 1 ends with tens of thousands of deletes; let etcd finish them before measuring others.
                    DesignWorkloadScenario.awaitEtcdRecovered(env);
                    Thread.sleep(20_000);
                }
                if (scenarios.stream().anyMatch(Set.of("2", "3", "6", "7")::contains)) {
                    List<LockSystem> systems = new ArrayList<>();
                    try {
                        systems.add(Systems.fenceLock(env.endpoints(), "/bench-s23"));
                        systems.add(Systems.fenceLock(env.endpoints(), "/bench-s23-async", true));
                        systems.add(Systems.rawEtcd(env.endpoints()));
                        systems.add(Systems.jetcdLock(env.endpoints()));
                        systems.add(Systems.redisson(env.redis().port()));
                        warmUp(env, settings, systems);
                        if (scenarios.contains("2")) {
                            uncontended = UncontendedScenario.run(env, settings, systems);
                        }
                        if (scenarios.contains("3")) {
                            hotKey = HotKeyScenario.run(env, settings, systems);
                        }
                        if (scenarios.contains("6")) {
                            relock = RelockScenario.run(env, settings, systems);
                        }
                        if (scenarios.contains("7")) {
                            zipf = ZipfScenario.run(env, settings, systems);
                        }
                    } catch (Exception ex) {
                        failures.add("scenario 2/3/6/7 failed: " + ex);
                        logger.error("Scenario 2/3/6/7 failed", ex);
                    } finally {
                        systems.forEach(LockSystem::close);
                    }
                }
                if (scenarios.contains("4")) {
                    try {
                        failover = FailoverScenario.run(env, settings);
                    } catch (Exception ex) {
                        failures.add("scenario 4 failed: " + ex);
                        logger.error("Scenario 4 failed", ex);
                    }
                }
            }
        }
        if (scenarios.contains("5")) {
            // On a cluster of its own, started after the shared one is gone: it must start fresh.
            try {
                degraded = DegradedScenario.run(settings);
            } catch (Exception ex) {
                failures.add("scenario 5 failed: " + ex);
                logger.error("Scenario 5 failed", ex);
            }
        }
        long minutes = ChronoUnit.SECONDS.between(started, Instant.now());
        List<String> environment = new ArrayList<>(environment(settings, started, minutes, loadBefore, loadAverage()));
        failures.forEach(failure -> environment.add("**" + failure + "**"));
        BenchmarkReport report = new BenchmarkReport(
                settings, environment, workload, uncontended, hotKey, failover, degraded, relock, zipf);
        ReportWriter.write(report, settings.out().resolve(RESULTS));
        List<LatencyChart.Panel> panels = LatencyChart.panels(report);
        if (!panels.isEmpty()) {
            LatencyChart.render(
                    panels,
                    "Latency percentiles per system (" + (settings.quick() ? "QUICK mode, not a result" : "full run")
                            + ", " + started.truncatedTo(ChronoUnit.MINUTES) + ")",
                    settings.out().resolve(CHART));
        }
        return report;
    }

    /**
     * Runs every system unmeasured first, so no system's numbers include the JIT compiling its client
     * (the first case of a cold client costs several times the CPU of later ones). Quick mode warms
     * up too, briefly: on a busy CI machine a cold client's first case can end before its first cycle.
     */
    static void warmUp(BenchEnvironment env, BenchSettings settings, List<LockSystem> systems) throws Exception {
        BenchSettings warm = settings.forWarmUp();
        for (LockSystem system : systems) {
            logger.info("Warming up {}", system.name());
            UncontendedScenario.runCase(
                    env, system, 16, "/bench-warm/" + system.name().hashCode() + "/", warm);
            if (system.supportsWaiting()) {
                HotKeyScenario.runCase(
                        env, system, 16, "/bench-warm/hot-" + system.name().hashCode(), warm);
            }
        }
    }

    private static List<String> environment(
            BenchSettings settings, Instant started, long seconds, String loadBefore, String loadAfter) {
        List<String> lines = new ArrayList<>();
        lines.add("run: " + started.truncatedTo(ChronoUnit.SECONDS) + ", " + seconds + " s, mode "
                + (settings.quick() ? "QUICK (sanity only, numbers meaningless)" : "full"));
        lines.add("machine: " + Runtime.getRuntime().availableProcessors() + " CPUs (nproc), " + memTotal() + ", "
                + System.getProperty("os.name") + " " + System.getProperty("os.version"));
        lines.add("JDK: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + ", GC " + gcNames() + ", max heap " + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB");
        lines.add("etcd: "
                + command("/usr/bin/etcd", "--version").lines().findFirst().orElse("?")
                + " (3 members, loopback, data on disk)");
        lines.add("Redis: " + RedisServer.version() + " (loopback, --save '' --appendonly no)");
        lines.add("clients: jetcd 0.8.7, Redisson " + redissonVersion() + ", FenceLock 0.1.0-SNAPSHOT at "
                + command("git", "describe", "--always", "--dirty"));
        lines.add("load average (1/5/15 min) before: " + loadBefore + "; after: " + loadAfter);
        return lines;
    }

    static String redissonVersion() {
        String version = org.redisson.Redisson.class.getPackage().getImplementationVersion();
        return version != null ? version : "3.52.0";
    }

    static String gcNames() {
        List<String> names = new ArrayList<>();
        ManagementFactory.getGarbageCollectorMXBeans().forEach(gc -> names.add(gc.getName()));
        return String.join("+", names);
    }

    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException ex) {
            return "unknown";
        }
    }

    static String memTotal() {
        try {
            return Files.readAllLines(Path.of("/proc/meminfo")).get(0).replaceAll("\\s+", " ");
        } catch (IOException ex) {
            return "memory unknown";
        }
    }

    static String command(String... command) {
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor(5, TimeUnit.SECONDS);
            return out.trim();
        } catch (IOException ex) {
            return "unknown";
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }
}
