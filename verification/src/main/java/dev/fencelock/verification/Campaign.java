package dev.fencelock.verification;

import dev.fencelock.verification.checker.CheckResult;
import dev.fencelock.verification.checker.DatabaseSnapshot;
import dev.fencelock.verification.checker.History;
import dev.fencelock.verification.checker.HistoryChecker;
import dev.fencelock.verification.checker.HistoryFiles;
import dev.fencelock.verification.fault.Fault;
import dev.fencelock.verification.fault.FaultKind;
import dev.fencelock.verification.worker.RunTables;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one campaign run from start to verdict: a fresh three-member store (etcd with a partitionable peer network,
 * or a ZooKeeper ensemble), fresh tables, the worker processes; the fault schedule; then the checker on the histories and the tables, and the
 * timeline. Everything it started is stopped by the time it returns or throws.
 */
public final class Campaign {

    private static final Logger logger = LoggerFactory.getLogger(Campaign.class);

    private static final Duration HEALTHY_AGAIN = Duration.ofSeconds(60);

    private Campaign() {}

    /** Runs {@code settings} and checks the result; the run's files are in {@code out/<name>}. */
    public static RunResult run(CampaignSettings settings) throws Exception {
        Path directory = settings.out().resolve(settings.name());
        deleteRecursively(directory);
        Files.createDirectories(directory);
        String runId = String.format(Locale.ROOT, "%08x", new Random().nextInt());
        RunTables tables = new RunTables("vr_" + runId);
        logger.info(
                "Run {} ({}, {}, {}) in {}",
                settings.name(),
                settings.store().label(),
                "guard " + settings.guard().label(),
                settings.faults(),
                directory);
        try (CampaignStore store = CampaignStore.start(settings.store());
                RunDatabase database = RunDatabase.create(tables, settings.keyNames(), settings.guard());
                FaultLog log = new FaultLog(directory);
                Testbed testbed = Testbed.start(store, settings, tables, "/verify-" + runId, directory, log)) {
            long started = System.nanoTime();
            log.runStart(settings.leaseTtl());
            schedule(settings, testbed);
            log.runEnd();
            Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
            testbed.stopWorkers();
            History history = HistoryFiles.read(directory);
            DatabaseSnapshot snapshot = database.snapshot();
            snapshot.write(directory);
            CheckResult check = HistoryChecker.check(history, snapshot);
            Path chart = directory.resolve(settings.name() + "-timeline.png");
            TimelineChart.render(history, title(settings, check), chart);
            RunResult result = new RunResult(settings, check, elapsed, directory, chart, log.describe());
            Files.writeString(
                    directory.resolve("result.md"), CampaignReport.runDetails(result), StandardCharsets.UTF_8);
            logger.info(
                    "Run {}: {} ok, {} fail, {} info, {} anomalies",
                    settings.name(),
                    check.ok(),
                    check.fail(),
                    check.info(),
                    check.anomalies().size());
            return result;
        }
    }

    private static void schedule(CampaignSettings settings, Testbed testbed) throws Exception {
        long deadline = System.nanoTime() + settings.maxDuration().toNanos();
        Map<FaultKind, Fault> faults = new EnumMap<>(FaultKind.class);
        settings.faults().forEach(kind -> faults.put(kind, kind.create(settings.store())));
        Random random = new Random(settings.seed());
        testbed.hold(settings.warmUp());
        ExecutorService companion = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "verification-companion-fault");
            thread.setDaemon(true);
            return thread;
        });
        try {
            for (int cycle = 0; cycle < settings.maxCycles(); cycle++) {
                if (settings.mixed()) {
                    injectTogether(pick(faults, random, true), pick(faults, random, false), testbed, companion);
                } else {
                    faults.get(settings.faults().get(cycle % settings.faults().size()))
                            .inject(testbed);
                }
                testbed.awaitClusterHealthy(HEALTHY_AGAIN);
                testbed.hold(settings.quiet());
                logger.info("{}: cycle {} done, {} acknowledged", settings.name(), cycle + 1, testbed.acknowledged());
                if (testbed.acknowledged() >= settings.okTarget() || System.nanoTime() - deadline > 0) {
                    return;
                }
            }
        } finally {
            companion.shutdownNow();
        }
    }

    /** One cluster fault here and one client fault beside it, both started at once. */
    private static void injectTogether(Fault cluster, Fault client, Testbed testbed, ExecutorService companion)
            throws Exception {
        Future<?> other = companion.submit(() -> {
            client.inject(testbed);
            return null;
        });
        try {
            cluster.inject(testbed);
        } finally {
            other.get(2, TimeUnit.MINUTES);
        }
    }

    private static Fault pick(Map<FaultKind, Fault> faults, Random random, boolean actingOnCluster) {
        List<FaultKind> candidates = new ArrayList<>();
        faults.keySet().stream()
                .filter(kind -> kind.actsOnCluster() == actingOnCluster)
                .forEach(candidates::add);
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException("a mixed run needs cluster and client faults, got " + faults.keySet());
        }
        return faults.get(candidates.get(random.nextInt(candidates.size())));
    }

    private static String title(CampaignSettings settings, CheckResult check) {
        return settings.name() + " (guard " + settings.guard().label().replace("*", "") + "): " + check.ok() + " ok, "
                + check.fail() + " fail, " + check.info() + " info, "
                + check.anomalies().size() + " anomalies";
    }

    private static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
