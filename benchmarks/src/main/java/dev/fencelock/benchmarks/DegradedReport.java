package dev.fencelock.benchmarks;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/** Scenario 5's part of {@code results.md}: the figures next to their targets, and what ran in the slowest seconds. */
final class DegradedReport {

    private DegradedReport() {}

    static void write(StringBuilder md, DegradedScenario.Result r, BenchSettings s) {
        DesignWorkloadScenario.Result w = r.workload();
        md.append("### Scenario 5 — degraded: one member down, compaction and defragmentation (FenceLock)\n\n");
        md.append(String.format(
                Locale.ROOT,
                "Scenario 1's workload at %,d acquisitions/s (%,d resources, %,d locks held at steady state) on a fresh"
                        + " three-member cluster. %s (leader %s); %s. Load average (1/5/15 min) before: %s;"
                        + " after: %s.\n\n",
                w.targetRate(),
                s.resources(),
                s.held(),
                r.failure().equals("none")
                        ? "All three members ran (a control run)"
                        : "Follower " + r.failedMember() + " was taken down with " + r.failure()
                                + " before the ramp-up",
                r.leader(),
                r.maintenance()
                        ? String.format(
                                Locale.ROOT,
                                "during the %.0f s window etcd's history was compacted to the current revision every"
                                        + " %d s and each running member was defragmented once",
                                w.windowSeconds(),
                                s.compactEvery().toSeconds())
                        : "no compaction or defragmentation ran (a control run)",
                r.loadBefore(),
                r.loadAfter()));
        double p99 = Reports.millis(w.acquire(), 99);
        md.append("| metric | value | target |\n|---|---|---|\n");
        row(
                md,
                "achieved rate (granted/s)",
                Reports.num(w.achievedRate()) + " " + ReportWriter.mark(w.achievedRate() >= 0.99 * w.targetRate()),
                "≥ 99% of the rate");
        row(md, "acquire p50 / p95 (ms, from intended start)", percentiles(w.acquire(), 50, 95), "");
        row(
                md,
                "acquire p99 (ms)",
                Reports.ms(p99) + " " + verdict(p99 <= ReportWriter.TARGET_BRIEF_P99_MS, "brief") + ", "
                        + verdict(p99 <= ReportWriter.TARGET_S1_P99_MS, "ours"),
                "≤ 200 ms (the brief), ≤ 50 ms (ours)");
        row(md, "acquire p99.9 / max (ms)", percentiles(w.acquire(), 99.9, 100), "");
        row(
                md,
                "release p50 / p95 / p99 / max (ms, from intended release time)",
                percentiles(w.release(), 50, 95, 99, 100),
                "");
        row(
                md,
                "failed acquisitions",
                w.errors() < 0 ? "**run failed** (see log)" : w.errors() + " " + ReportWriter.mark(w.errors() == 0),
                "0");
        row(
                md,
                "compactions (each to the current revision)",
                r.maintenance() ? compactions(r.compactions()) : "not run",
                "≥ 1 in the window");
        CompactionAndDefrag.Pauses pauses = r.compactionPauses();
        row(
                md,
                "compaction pauses, as etcd counts them (`" + CompactionAndDefrag.PAUSES
                        + "`, both running members): batches / total",
                String.format(Locale.ROOT, "%.0f / %s ms", pauses.batches(), Reports.ms(pauses.millis())),
                "");
        row(md, "defragmentations", r.maintenance() ? runs(r.defrags()) : "not run", "each running member once");
        ContendedKeysCheck.Result check = r.check();
        row(
                md,
                "contended keys beside the load: grants / failed / double holders / token regressions",
                check.acquisitions() + " / " + check.failures() + " / " + check.doubleHolders() + " / "
                        + check.tokenRegressions() + " "
                        + ReportWriter.mark(check.doubleHolders() == 0 && check.tokenRegressions() == 0),
                "0 double holders, 0 regressions");
        row(
                md,
                "workload token regressions (per resource)",
                w.tokenRegressions() + " " + ReportWriter.mark(w.tokenRegressions() == 0),
                "0");
        row(md, "issuer lag behind schedule, worst (ms)", Long.toString(w.issuerLateMillis()), "");
        md.append("\nThe window's slowest seconds (by the worst acquisition intended to start in them) and the"
                + " maintenance that ran from the second before to their slowest acquisition's end:\n\n");
        md.append("| second | grants | p99 ms | max ms | maintenance running |\n|---:|---:|---:|---:|---|\n");
        List<CompactionAndDefrag.Run> all = new ArrayList<>(r.compactions());
        all.addAll(r.defrags());
        for (LatencyTimeline.Second second : r.slowestSeconds()) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %d | %,d | %s | %s | %s |\n",
                    second.second(),
                    second.acquisitions(),
                    Reports.ms(second.p99Millis()),
                    Reports.ms(second.maxMillis()),
                    overlapping(all, second)));
        }
        md.append('\n');
    }

    private static void row(StringBuilder md, String metric, String value, String target) {
        md.append("| ")
                .append(metric)
                .append(" | ")
                .append(value)
                .append(" | ")
                .append(target)
                .append(" |\n");
    }

    private static String verdict(boolean met, String whose) {
        return met ? "✓ " + whose : "✗ " + whose;
    }

    private static String percentiles(Histogram histogram, double... percentiles) {
        List<String> values = new ArrayList<>();
        for (double percentile : percentiles) {
            values.add(Reports.ms(Reports.millis(histogram, percentile)));
        }
        return String.join(" / ", values);
    }

    /** Count, then min / median / max time, then failures. */
    private static String compactions(List<CompactionAndDefrag.Run> runs) {
        List<Double> millis = runs.stream()
                .filter(run -> run.failure() == null)
                .map(CompactionAndDefrag.Run::millis)
                .sorted()
                .toList();
        long failed = runs.size() - millis.size();
        if (millis.isEmpty()) {
            return "**none succeeded** (" + failed + " failed) ✗";
        }
        return String.format(
                Locale.ROOT,
                "%d, took %s / %s / %s ms (min / median / max)%s %s",
                millis.size(),
                Reports.ms(millis.get(0)),
                Reports.ms(millis.get(millis.size() / 2)),
                Reports.ms(millis.get(millis.size() - 1)),
                failed == 0 ? "" : "; **" + failed + " failed**",
                ReportWriter.mark(failed == 0));
    }

    private static String runs(List<CompactionAndDefrag.Run> runs) {
        if (runs.isEmpty()) {
            return "**none** ✗";
        }
        return runs.stream()
                        .sorted(Comparator.comparingDouble(CompactionAndDefrag.Run::startMillis))
                        .map(run -> String.format(
                                Locale.ROOT,
                                "%s at %.1f s: %s",
                                run.what(),
                                run.startMillis() / 1000,
                                run.failure() == null
                                        ? Reports.ms(run.millis()) + " ms, " + run.detail()
                                        : "**failed**: " + run.failure()))
                        .collect(Collectors.joining("; "))
                + " " + ReportWriter.mark(runs.stream().allMatch(run -> run.failure() == null));
    }

    /**
     * The runs that overlapped what an acquisition intended in {@code second} waited through: from
     * the second before it (a stall's queue takes a while to drain) to its end plus its slowest
     * acquisition.
     */
    private static String overlapping(List<CompactionAndDefrag.Run> runs, LatencyTimeline.Second second) {
        double from = (second.second() - 1) * 1000.0;
        double to = from + 1000 + second.maxMillis();
        String text = runs.stream()
                .filter(run -> run.startMillis() <= to && run.endMillis() >= from)
                .sorted(Comparator.comparingDouble(CompactionAndDefrag.Run::startMillis))
                .map(run -> String.format(
                        Locale.ROOT, "%s (%.1f–%.1f s)", run.what(), run.startMillis() / 1000, run.endMillis() / 1000))
                .collect(Collectors.joining(", "));
        return text.isEmpty() ? "none" : text;
    }
}
