package dev.fencelock.benchmarks;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The comparison of stores ({@code -Dbench.stores=zookeeper}): FenceLock on ZooKeeper, Curator's
 * {@code InterProcessMutex}, FenceLock on etcd and etcd's v3lock, side by side in one run on a
 * three-member ZooKeeper ensemble and a three-member etcd cluster, in scenarios 2 (fresh keys), 6
 * (re-lock of one's own key) and 3 (one hot key), and the seed workload open loop
 * ({@link SeedWorkloadScenario}). The usual run is unchanged unless this is asked for. As in the
 * main run, {@code -Dbench.scenarios} picks parts: {@code 1} (the seed workload, scenario 1's), {@code 2}, {@code 3}
 * and {@code 6}; all by default.
 */
final class StoresComparison {

    private static final Logger logger = LoggerFactory.getLogger(StoresComparison.class);

    static final String FENCELOCK_ETCD = "FenceLock on etcd";

    private StoresComparison() {}

    /**
     * Everything the comparison measured; a part that failed is empty and named in {@code environment}.
     *
     * @param settings the sizes used
     * @param environment machine, versions and load, one line each
     * @param uncontended scenario 2: a fresh key per cycle
     * @param relock scenario 6: one key per thread, locked again and again
     * @param hotKey scenario 3: one key, N contenders
     * @param seed the seed workload, one result per system
     */
    record Result(
            BenchSettings settings,
            List<String> environment,
            List<CaseResult> uncontended,
            List<CaseResult> relock,
            List<CaseResult> hotKey,
            List<SeedWorkloadScenario.Result> seed) {}

    static Result run(BenchSettings settings) throws Exception {
        Set<String> parts = BenchmarkMain.scenarios();
        String loadBefore = BenchmarkMain.loadAverage();
        Instant started = Instant.now();
        List<String> failures = new ArrayList<>();
        List<CaseResult> uncontended = List.of();
        List<CaseResult> relock = List.of();
        List<CaseResult> hotKey = List.of();
        List<SeedWorkloadScenario.Result> seed = new ArrayList<>();
        String zooKeeperVersion = "?";
        try (BenchEnvironment env = BenchEnvironment.startWithZooKeeper()) {
            String connect = env.zookeeper().connectString();
            logger.info("etcd {} and ZooKeeper {} started", env.endpoints(), connect);
            zooKeeperVersion = zooKeeperVersion(env);
            List<LockSystem> systems = new ArrayList<>();
            try {
                systems.add(ZooKeeperSystems.fenceLock(connect, "/bench-fencelock"));
                systems.add(ZooKeeperSystems.curator(connect));
                systems.add(Systems.fenceLock(env.endpoints(), "/bench-stores", FENCELOCK_ETCD));
                systems.add(Systems.jetcdLock(env.endpoints()));
                BenchmarkMain.warmUp(env, settings, systems);
                if (parts.contains("2")) {
                    uncontended = part("scenario 2", failures, () -> UncontendedScenario.run(env, settings, systems));
                }
                if (parts.contains("6")) {
                    relock = part("scenario 6", failures, () -> RelockScenario.run(env, settings, systems));
                }
                if (parts.contains("3")) {
                    hotKey = part("scenario 3", failures, () -> HotKeyScenario.run(env, settings, systems));
                }
                int rate = settings.rates().get(0);
                int run = 0;
                for (LockSystem system : parts.contains("1") ? List.copyOf(systems) : List.<LockSystem>of()) {
                    String prefix = "/bench-seed-" + (run++) + "/res-";
                    try {
                        seed.add(SeedWorkloadScenario.run(env, settings, system, rate, prefix));
                    } catch (Exception ex) {
                        failures.add("seed workload of " + system.name() + " failed: " + ex);
                        logger.error("Seed workload of {} failed", system.name(), ex);
                    }
                    // Its session goes, and whatever it still holds with it, before the next system starts.
                    systems.remove(system);
                    system.close();
                    if (system.store() == LockSystem.Store.ETCD) {
                        DesignWorkloadScenario.awaitEtcdRecovered(env);
                    }
                }
            } finally {
                systems.forEach(LockSystem::close);
            }
        }
        long seconds = ChronoUnit.SECONDS.between(started, Instant.now());
        List<String> environment =
                environment(settings, started, seconds, loadBefore, BenchmarkMain.loadAverage(), zooKeeperVersion);
        failures.forEach(failure -> environment.add("**" + failure + "**"));
        return new Result(settings, environment, uncontended, relock, hotKey, seed);
    }

    @FunctionalInterface
    private interface Part {
        List<CaseResult> run() throws Exception;
    }

    private static List<CaseResult> part(String name, List<String> failures, Part part) {
        try {
            return part.run();
        } catch (Exception ex) {
            failures.add(name + " failed: " + ex);
            logger.error("{} failed", name, ex);
            return List.of();
        }
    }

    private static String zooKeeperVersion(BenchEnvironment env) {
        String srvr = env.zookeeper().members().get(0).fourLetters("srvr");
        return srvr == null ? "?" : srvr.lines().findFirst().orElse("?");
    }

    private static List<String> environment(
            BenchSettings settings,
            Instant started,
            long seconds,
            String loadBefore,
            String loadAfter,
            String zooKeeperVersion) {
        List<String> lines = new ArrayList<>();
        lines.add("run: " + started.truncatedTo(ChronoUnit.SECONDS) + ", " + seconds + " s, mode "
                + (settings.quick() ? "QUICK (sanity only, numbers meaningless)" : "full")
                + ", comparison of stores");
        lines.add("machine: " + Runtime.getRuntime().availableProcessors() + " CPUs (nproc), "
                + BenchmarkMain.memTotal() + ", " + System.getProperty("os.name") + " "
                + System.getProperty("os.version"));
        lines.add("JDK: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + ", GC " + BenchmarkMain.gcNames() + ", max heap "
                + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB");
        lines.add("etcd: "
                + BenchmarkMain.command("/usr/bin/etcd", "--version")
                        .lines()
                        .findFirst()
                        .orElse("?")
                + " (3 members, loopback, data on disk)");
        lines.add("ZooKeeper: " + zooKeeperVersion
                + " (Debian's package, 3 members, loopback, data on disk, tickTime 500 ms, -Xmx"
                + BenchEnvironment.ZOOKEEPER_HEAP + " each)");
        lines.add("clients: jetcd 0.8.7, ZooKeeper client " + org.apache.zookeeper.Version.getFullVersion()
                + ", Curator " + curatorVersion() + ", FenceLock 0.1.0-SNAPSHOT at "
                + BenchmarkMain.command("git", "describe", "--always", "--dirty"));
        lines.add("load average (1/5/15 min) before: " + loadBefore + "; after: " + loadAfter);
        return lines;
    }

    private static String curatorVersion() {
        String version =
                org.apache.curator.framework.CuratorFramework.class.getPackage().getImplementationVersion();
        return version != null ? version : "5.7.1";
    }
}
