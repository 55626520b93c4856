package dev.fencelock.verification;

import dev.fencelock.verification.fault.FaultKind;
import dev.fencelock.verification.worker.Guard;
import dev.fencelock.verification.worker.Store;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The long mode: for every fault, a fenced run until {@code -Dverify.ok} (default 10,000) increments are
 * acknowledged, then a mixed run as long; the same again with the client's guard off and the run's tables protected
 * by triggers ("triggers only"); and for every fault, a control run without any guard for {@code
 * -Dverify.control.cycles} (default 6) fault cycles. Writes each run's directory and {@value #RESULTS} (the tables,
 * side by side per fault) to {@code -Dverify.out} (default {@code target/campaign}). {@code -Dverify.faults=zombie,
 * leader-kill} limits the faults; {@code -Dverify.triggers=false} skips the triggers-only runs, {@code
 * -Dverify.control=false} the control runs; {@code -Dverify.runs=fenced-mixed,control-zombie} runs only the runs
 * named. {@code -Dverify.store=zookeeper} runs on a ZooKeeper ensemble instead of etcd, with the faults that have a
 * meaning there.
 */
public final class CampaignMain {

    private static final Logger logger = LoggerFactory.getLogger(CampaignMain.class);

    static final String RESULTS = "results.md";

    private CampaignMain() {}

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        Path out = Path.of(System.getProperty("verify.out", "target/campaign"));
        long okTarget = Long.getLong("verify.ok", 10_000);
        int controlCycles = Integer.getInteger("verify.control.cycles", 6);
        Duration maxPerRun = Duration.ofMinutes(Long.getLong("verify.maxMinutes", 15));
        boolean triggers = Boolean.parseBoolean(System.getProperty("verify.triggers", "true"));
        boolean control = Boolean.parseBoolean(System.getProperty("verify.control", "true"));
        Store store = Store.of(System.getProperty("verify.store", Store.ETCD.label()));
        List<FaultKind> faults = faults(System.getProperty("verify.faults", ""), store);
        List<String> only = List.of(System.getProperty("verify.runs", "").split(",")).stream()
                .map(String::trim)
                .filter(name -> !name.isEmpty())
                .toList();
        Files.createDirectories(out);
        Instant started = Instant.now();
        String loadBefore = loadAverage();
        List<String> failures = new ArrayList<>();
        List<RunResult> fenced = runAll(
                store,
                Guard.CLIENT,
                faults,
                out,
                only,
                failures,
                settings -> settings.untilAcknowledged(okTarget, maxPerRun));
        List<RunResult> triggered = triggers
                ? runAll(
                        store,
                        Guard.TRIGGERS_ONLY,
                        faults,
                        out,
                        only,
                        failures,
                        settings -> settings.untilAcknowledged(okTarget, maxPerRun))
                : List.of();
        List<RunResult> controls = control
                ? runAll(store, Guard.OFF, faults, out, only, failures, settings -> settings.cycles(controlCycles))
                : List.of();
        long minutes = Duration.between(started, Instant.now()).toMinutes();
        String report = "# Verification campaign\n\n" + "Run " + started.truncatedTo(ChronoUnit.SECONDS) + ", "
                + minutes + " min; load average before " + loadBefore + ", after " + loadAverage() + "; FenceLock at "
                + command("git", "describe", "--always", "--dirty") + ", "
                + storeVersion(store) + ", "
                + Runtime.getRuntime().availableProcessors() + " CPUs.\n\n## Guard on\n\n"
                + CampaignReport.table(fenced)
                + (triggers
                        ? "\n## Triggers only (client guard off, tables protected)\n\n"
                                + CampaignReport.table(triggered)
                        : "")
                + "\n## Guard off (control)\n\n" + CampaignReport.table(controls)
                + "\n## Side by side\n\n" + CampaignReport.sideBySide(fenced, triggered, controls)
                + (failures.isEmpty() ? "" : "\n## Runs that did not finish\n\n- " + String.join("\n- ", failures))
                + "\n";
        Files.writeString(out.resolve(RESULTS), report, StandardCharsets.UTF_8);
        System.out.println(report);
        // jetcd leaves non-daemon threads behind on some paths; the campaign is over.
        System.exit(failures.isEmpty() ? 0 : 1);
    }

    /** One run per fault with {@code guard}, and with every fault a mixed run, each ended as {@code length} says. */
    private static List<RunResult> runAll(
            Store store,
            Guard guard,
            List<FaultKind> faults,
            Path out,
            List<String> only,
            List<String> failures,
            UnaryOperator<CampaignSettings> length) {
        List<RunResult> results = new ArrayList<>();
        for (FaultKind fault : faults) {
            run(
                    length.apply(CampaignSettings.of(
                            guard.runPrefix() + "-" + fault.label(), store, guard, List.of(fault), out)),
                    only,
                    results,
                    failures);
        }
        if (faults.size() == FaultKind.on(store).size()) {
            run(
                    length.apply(CampaignSettings.of(guard.runPrefix() + "-mixed", store, guard, faults, out)
                            .mixing()),
                    only,
                    results,
                    failures);
        }
        return results;
    }

    private static void run(
            CampaignSettings settings, List<String> only, List<RunResult> results, List<String> failures) {
        if (!only.isEmpty() && !only.contains(settings.name())) {
            return;
        }
        try {
            results.add(Campaign.run(settings));
        } catch (Exception e) {
            logger.error("Run {} failed", settings.name(), e);
            failures.add(settings.name() + ": " + e);
        }
    }

    private static List<FaultKind> faults(String selection, Store store) {
        List<FaultKind> known = FaultKind.on(store);
        if (selection.isBlank()) {
            return known;
        }
        return Arrays.stream(selection.split(","))
                .map(String::trim)
                .map(label -> known.stream()
                        .filter(kind -> kind.label().equals(label))
                        .findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("no fault named " + label + " on "
                                + store.label() + "; known: "
                                + known.stream().map(FaultKind::label).toList())))
                .toList();
    }

    private static String storeVersion(Store store) {
        return switch (store) {
            case ETCD ->
                command("/usr/bin/etcd", "--version").lines().findFirst().orElse("etcd ?");
            case ZOOKEEPER -> "ZooKeeper " + command("dpkg-query", "-W", "-f=${Version}", "zookeeper") + " (Debian)";
        };
    }

    private static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return String.format(Locale.ROOT, "%s %s %s", parts[0], parts[1], parts[2]);
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String command(String... command) {
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor(5, TimeUnit.SECONDS);
            return text.trim();
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }
}
