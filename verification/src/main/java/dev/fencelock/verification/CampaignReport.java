package dev.fencelock.verification;

import dev.fencelock.verification.checker.Anomaly;
import dev.fencelock.verification.checker.CheckResult;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/** Writes runs as Markdown: one table row per run, and a page of details per run. */
final class CampaignReport {

    private static final int EXAMPLES_PER_KIND = 5;

    private static final String NOT_RUN = "not run";

    /** The workers' reason for a write that the client refused, knowing its lease lost. */
    private static final String LOCAL = "fenced-local";

    /** ... that the fence table refused. */
    private static final String FENCE_TABLE = "fenced-db";

    /** ... that a protected table's trigger refused. */
    private static final String PROTECTED_TABLE = "fenced-protected-table";

    private CampaignReport() {}

    /** The results table: one row per run. */
    static String table(List<RunResult> runs) {
        StringBuilder out = new StringBuilder();
        out.append("| run | guard | faults injected | duration | ok | fail | info (committed) | availability"
                + " | standstill median / max | recovery median / max | overlapping holds | anomalies |\n");
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (RunResult run : runs) {
            CheckResult check = run.check();
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %d | %d s | %,d | %,d | %d (%d) | %.1f %% | %s | %s | %,d | %s |%n",
                    run.settings().name(),
                    run.settings().guard().label(),
                    check.recoveries().size(),
                    run.elapsed().toSeconds(),
                    check.ok(),
                    check.fail(),
                    check.info() + check.unfinished(),
                    check.unknownApplied(),
                    100 * check.availability(),
                    seconds(check.recoveries().stream()
                            .map(CheckResult.Recovery::outageMillis)
                            .toList()),
                    seconds(check.recoveries().stream()
                            .map(CheckResult.Recovery::millis)
                            .toList()),
                    check.overlappingHolds(),
                    anomalies(check)));
        }
        return out.toString();
    }

    /**
     * Per fault: the anomalies of the run with the client's guard, of the triggers-only run and of the control run,
     * and who refused the stale writes of the first two ({@code fenced-local}: the client, knowing its lease lost;
     * {@code fenced-db}: the fence table; {@code fenced-protected-table}: a protected table's trigger). A run that
     * was not run reads "not run".
     */
    static String sideBySide(List<RunResult> fenced, List<RunResult> triggers, List<RunResult> controls) {
        Set<String> faults = new LinkedHashSet<>();
        Stream.of(fenced, triggers, controls).flatMap(List::stream).forEach(run -> faults.add(fault(run)));
        StringBuilder out = new StringBuilder();
        out.append("| fault | guard on: anomalies | guard on: stale writes refused locally / by the database"
                + " | triggers only: anomalies | triggers only: refused locally / fence table / protected table"
                + " | guard off: anomalies |\n");
        out.append("|---|---|---|---|---|---|\n");
        for (String fault : faults) {
            CheckResult on = find(fenced, fault);
            CheckResult triggered = find(triggers, fault);
            CheckResult off = find(controls, fault);
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | %s | %s | %s |%n",
                    fault,
                    on == null ? NOT_RUN : anomalies(on),
                    on == null ? NOT_RUN : refusals(on, LOCAL, FENCE_TABLE),
                    triggered == null ? NOT_RUN : anomalies(triggered),
                    triggered == null ? NOT_RUN : refusals(triggered, LOCAL, FENCE_TABLE, PROTECTED_TABLE),
                    off == null ? NOT_RUN : controlAnomalies(off)));
        }
        return out.toString();
    }

    /** The fault of a run named {@code <guard>-<fault>}. */
    private static String fault(RunResult run) {
        String name = run.settings().name();
        return name.substring(name.indexOf('-') + 1);
    }

    private static @Nullable CheckResult find(List<RunResult> runs, String fault) {
        return runs.stream()
                .filter(run -> fault(run).equals(fault))
                .map(RunResult::check)
                .findFirst()
                .orElse(null);
    }

    /** How many writes failed for each of {@code reasons}, as {@code a / b / c}. */
    private static String refusals(CheckResult check, String... reasons) {
        return Stream.of(reasons)
                .map(reason ->
                        String.format(Locale.ROOT, "%,d", check.failReasons().getOrDefault(reason, 0)))
                .collect(Collectors.joining(" / "));
    }

    /** A control run's anomalies: how many, and how many of them are lost updates, the ones that matter most. */
    private static String controlAnomalies(CheckResult check) {
        int lost = check.anomalyCounts().getOrDefault(Anomaly.Kind.LOST_UPDATE, 0);
        if (lost == 0) {
            return anomalies(check);
        }
        return String.format(
                Locale.ROOT, "%,d (%,d lost update%s)", check.anomalies().size(), lost, lost == 1 ? "" : "s");
    }

    /** Everything about one run: counts, reasons, recoveries, fault windows and anomaly examples. */
    static String runDetails(RunResult run) {
        CheckResult check = run.check();
        StringBuilder out = new StringBuilder();
        out.append("# ").append(run.settings().name()).append("\n\n");
        out.append(table(List.of(run))).append('\n');
        out.append("- fail reasons: ").append(check.failReasons()).append('\n');
        out.append("- info reasons: ").append(check.infoReasons()).append('\n');
        out.append("- unfinished when the workers stopped: ")
                .append(check.unfinished())
                .append('\n');
        out.append("- committed rows: ").append(check.committed()).append('\n');
        out.append("- unreadable history lines: ")
                .append(check.problems().size())
                .append('\n');
        check.problems().stream()
                .limit(5)
                .forEach(p -> out.append("  - ").append(p).append('\n'));
        out.append("\n## Faults and recovery\n\n");
        for (int i = 0; i < check.recoveries().size(); i++) {
            CheckResult.Recovery recovery = check.recoveries().get(i);
            out.append(String.format(
                    Locale.ROOT,
                    "- %s: %s; longest stretch without an acknowledged increment %.0f ms; every key acknowledged"
                            + " again after %s%n",
                    recovery.fault().name(),
                    recovery.fault().detail(),
                    recovery.outageMillis(),
                    Double.isNaN(recovery.millis())
                            ? "(not before the run ended)"
                            : String.format(Locale.ROOT, "%.0f ms", recovery.millis())));
        }
        out.append("\n## Anomalies\n\n");
        if (check.anomalies().isEmpty()) {
            out.append("None.\n");
        }
        Map<Anomaly.Kind, List<Anomaly>> byKind =
                check.anomalies().stream().collect(Collectors.groupingBy(Anomaly::kind));
        byKind.forEach((kind, anomalies) -> {
            out.append("### ")
                    .append(kind)
                    .append(" (")
                    .append(anomalies.size())
                    .append(")\n\n");
            anomalies.stream()
                    .limit(EXAMPLES_PER_KIND)
                    .forEach(a -> out.append("- ")
                            .append(a.key())
                            .append(' ')
                            .append(a.operationId())
                            .append(": ")
                            .append(a.detail())
                            .append('\n'));
            out.append('\n');
        });
        return out.toString();
    }

    /** Median and maximum of {@code millis} in seconds; NaN entries are counted as "never". */
    static String seconds(List<Double> millis) {
        List<Double> known = new ArrayList<>();
        long missing = 0;
        for (double value : millis) {
            if (Double.isNaN(value)) {
                missing++;
            } else {
                known.add(value);
            }
        }
        if (known.isEmpty()) {
            return missing == 0 ? "n/a" : "never";
        }
        known.sort(Double::compare);
        String text = String.format(
                Locale.ROOT, "%.1f / %.1f s", known.get(known.size() / 2) / 1000, known.get(known.size() - 1) / 1000);
        return missing == 0 ? text : text + " (" + missing + " never)";
    }

    static String anomalies(CheckResult check) {
        if (check.anomalies().isEmpty()) {
            return "0";
        }
        return "**" + check.anomalies().size() + "**: "
                + check.anomalyCounts().entrySet().stream()
                        .map(e -> e.getValue() + " "
                                + e.getKey().name().toLowerCase(Locale.ROOT).replace('_', ' '))
                        .collect(Collectors.joining(", "));
    }
}
