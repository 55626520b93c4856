package dev.fencelock.verification;

import dev.fencelock.verification.fault.FaultKind;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The long mode: for every fault, a fenced run until {@code -Dverify.ok} (default 10,000) increments are
 * acknowledged, then a mixed run as long; and for every fault, a control run without the guard for {@code
 * -Dverify.control.cycles} (default 6) fault cycles. Writes each run's directory and {@value #RESULTS} (both tables,
 * side by side per fault) to {@code -Dverify.out} (default {@code target/campaign}). {@code -Dverify.faults=zombie,
 * leader-kill} limits the faults; {@code -Dverify.control=false} skips the control runs; {@code
 * -Dverify.runs=fenced-mixed,control-zombie} runs only the runs named.
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
        boolean control = Boolean.parseBoolean(System.getProperty("verify.control", "true"));
        List<FaultKind> faults = faults(System.getProperty("verify.faults", ""));
        List<String> only = List.of(System.getProperty("verify.runs", "").split(",")).stream()
                .map(String::trim)
                .filter(name -> !name.isEmpty())
                .toList();
        Files.createDirectories(out);
        Instant started = Instant.now();
        String loadBefore = loadAverage();
        List<RunResult> fenced = new ArrayList<>();
        List<RunResult> controls = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (FaultKind fault : faults) {
            run(
                    CampaignSettings.of("fenced-" + fault.label(), true, List.of(fault), out)
                            .untilAcknowledged(okTarget, maxPerRun),
                    only,
                    fenced,
                    failures);
        }
        if (faults.size() == FaultKind.values().length) {
            run(
                    CampaignSettings.of("fenced-mixed", true, faults, out)
                            .mixing()
                            .untilAcknowledged(okTarget, maxPerRun),
                    only,
                    fenced,
                    failures);
        }
        if (control) {
            for (FaultKind fault : faults) {
                run(
                        CampaignSettings.of("control-" + fault.label(), false, List.of(fault), out)
                                .cycles(controlCycles),
                        only,
                        controls,
                        failures);
            }
            if (faults.size() == FaultKind.values().length) {
                run(
                        CampaignSettings.of("control-mixed", false, faults, out)
                                .mixing()
                                .cycles(controlCycles),
                        only,
                        controls,
                        failures);
            }
        }
        long minutes = Duration.between(started, Instant.now()).toMinutes();
        String report = "# Verification campaign\n\n" + "Run " + started.truncatedTo(ChronoUnit.SECONDS) + ", "
                + minutes + " min; load average before " + loadBefore + ", after " + loadAverage() + "; FenceLock at "
                + command("git", "describe", "--always", "--dirty") + ", "
                + command("/usr/bin/etcd", "--version").lines().findFirst().orElse("etcd ?") + ", "
                + Runtime.getRuntime().availableProcessors() + " CPUs.\n\n## Guard on\n\n"
                + CampaignReport.table(fenced) + "\n## Guard off (control)\n\n" + CampaignReport.table(controls)
                + "\n## Side by side\n\n" + CampaignReport.sideBySide(fenced, controls)
                + (failures.isEmpty() ? "" : "\n## Runs that did not finish\n\n- " + String.join("\n- ", failures))
                + "\n";
        Files.writeString(out.resolve(RESULTS), report, StandardCharsets.UTF_8);
        System.out.println(report);
        // jetcd leaves non-daemon threads behind on some paths; the campaign is over.
        System.exit(failures.isEmpty() ? 0 : 1);
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

    private static List<FaultKind> faults(String selection) {
        if (selection.isBlank()) {
            return List.of(FaultKind.values());
        }
        return Arrays.stream(selection.split(","))
                .map(String::trim)
                .map(label -> Arrays.stream(FaultKind.values())
                        .filter(kind -> kind.label().equals(label))
                        .findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("no fault named " + label + "; known: "
                                + Arrays.stream(FaultKind.values())
                                        .map(FaultKind::label)
                                        .toList())))
                .toList();
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
