package dev.fencelock.benchmarks;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Renders the closed-loop cycle scenarios that compare every system on one key pattern: re-locking
 * one's own resource (6) and Zipf-skewed keys (7), each with issue 16's targets ({@code release()}
 * at least 1.2× etcd's lock, {@code releaseAsync()} never slower than {@code release()}, client CPU
 * per cycle at most etcd's lock's). Also the lookups that the tables of scenarios 2 and 3 share.
 */
final class CycleTables {

    /** Scenario 2's target, held to the same mark on these key patterns. */
    static final double TARGET_VS_JETCD = ReportWriter.TARGET_S2_VS_JETCD;

    static final double TARGET_ASYNC_VS_RELEASE = 1.0;

    static final double TARGET_CPU_VS_JETCD = 1.0;

    static final List<String> FENCELOCK_VARIANTS = List.of(Systems.FENCELOCK, Systems.FENCELOCK_ASYNC);

    private CycleTables() {}

    static void relock(StringBuilder md, List<CaseResult> cases) {
        md.append("### Scenario 6 — re-locking one's own resource (acquire + release of one fixed key per thread,"
                + " closed loop)\n\n");
        md.append(
                "| concurrency | system | cycles/s | per round | p50 ms | p99 ms | p99.9 ms | errors | double holders /"
                        + " token regressions | client CPU µs/cycle | server CPU µs/cycle | etcd requests per cycle |"
                        + " FenceLock ÷ this: release() / releaseAsync() |\n");
        md.append("|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
        for (CaseResult c : cases) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %d | %s | %s | %s | %s | %s | %s | %d | %d | %s | %s | %s | %s |\n",
                    c.concurrency(),
                    c.system(),
                    Reports.num(c.perSecond()),
                    c.roundRatesText(),
                    Reports.ms(c.millis(50)),
                    Reports.ms(c.millis(99)),
                    Reports.ms(c.millis(99.9)),
                    c.errors(),
                    c.violations(),
                    Reports.num(c.clientCpuMicros()),
                    Reports.num(c.serverCpuMicros()),
                    c.etcdRequestsPerOperation(),
                    fenceLockRatios(cases, c)));
        }
        md.append('\n');
        targets(md, cases);
    }

    static void zipf(StringBuilder md, List<CaseResult> cases, BenchSettings settings) {
        ZipfKeys zipf = new ZipfKeys(settings.zipfResources(), settings.zipfExponent());
        md.append(String.format(
                Locale.ROOT,
                "### Scenario 7 — Zipf-skewed keys (exponent %.2f over %,d resources, closed loop; raw etcd skipped:"
                        + " a put cannot wait)\n\n",
                settings.zipfExponent(),
                settings.zipfResources()));
        md.append(String.format(
                Locale.ROOT,
                "The most popular resource is drawn in %.1f%% of the cycles, the 10 most popular in %.1f%%. *Contended*:"
                        + " another thread of the case was acquiring or holding the resource when the acquisition"
                        + " started; *reused*: the resource had been locked before in the case.\n\n",
                100 * zipf.probability(0),
                100 * topShare(zipf, 10)));
        md.append(
                "| concurrency | system | cycles/s | per round | p50 ms | p99 ms | p99.9 ms | errors | double holders /"
                        + " token regressions | contended / reused | client CPU µs/cycle | server CPU µs/cycle | etcd requests"
                        + " per cycle | FenceLock ÷ this: release() / releaseAsync() |\n");
        md.append("|---:|---|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---|---:|\n");
        for (CaseResult c : cases) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %d | %s | %s | %s | %s | %s | %s | %d | %d | %s | %s | %s | %s | %s |\n",
                    c.concurrency(),
                    c.system(),
                    Reports.num(c.perSecond()),
                    c.roundRatesText(),
                    Reports.ms(c.millis(50)),
                    Reports.ms(c.millis(99)),
                    Reports.ms(c.millis(99.9)),
                    c.errors(),
                    c.violations(),
                    percent(c.sharing().contendedShare()) + " / "
                            + percent(c.sharing().reusedShare()),
                    Reports.num(c.clientCpuMicros()),
                    Reports.num(c.serverCpuMicros()),
                    c.etcdRequestsPerOperation(),
                    fenceLockRatios(cases, c)));
        }
        md.append('\n');
        targets(md, cases);
    }

    /**
     * Per concurrency and way of releasing: FenceLock over etcd's lock, {@code releaseAsync()} over
     * {@code release()}, and client CPU per cycle over etcd's lock's.
     */
    private static void targets(StringBuilder md, List<CaseResult> cases) {
        md.append("| concurrency | FenceLock | ÷ jetcd Lock (target ≥ 1.2×) |"
                + " ÷ `release()` (target ≥ 1.00×) | client CPU µs/cycle ÷ jetcd Lock's (target ≤ 1.00×) |\n");
        md.append("|---:|---|---|---|---|\n");
        cases.stream().map(CaseResult::concurrency).distinct().forEach(n -> {
            for (String variant : FENCELOCK_VARIANTS) {
                double fence = rate(cases, variant, n);
                double jetcd = fence / rate(cases, Systems.JETCD_LOCK, n);
                double cpu = cpu(cases, variant, n);
                double jetcdCpu = cpu(cases, Systems.JETCD_LOCK, n);
                StringBuilder row = new StringBuilder();
                row.append(String.format(
                        Locale.ROOT,
                        "| %d | %s | %s %s |",
                        n,
                        releaseOf(variant),
                        Reports.ratio(jetcd),
                        met(jetcd >= TARGET_VS_JETCD)));
                if (variant.equals(Systems.FENCELOCK_ASYNC)) {
                    double async = fence / rate(cases, Systems.FENCELOCK, n);
                    row.append(String.format(
                            Locale.ROOT, " %s %s |", Reports.ratio(async), met(async >= TARGET_ASYNC_VS_RELEASE)));
                } else {
                    row.append(" |");
                }
                row.append(String.format(
                        Locale.ROOT,
                        " %s ÷ %s = %s %s |\n",
                        Reports.num(cpu),
                        Reports.num(jetcdCpu),
                        Reports.ratio(cpu / jetcdCpu),
                        met(cpu / jetcdCpu <= TARGET_CPU_VS_JETCD)));
                md.append(row);
            }
        });
        md.append('\n');
    }

    static String releaseOf(String variant) {
        return variant.equals(Systems.FENCELOCK_ASYNC) ? "`releaseAsync()`" : "`release()`";
    }

    /** Both FenceLock variants' rates over this case's, in the same run; empty for FenceLock itself. */
    static String fenceLockRatios(List<CaseResult> cases, CaseResult c) {
        if (c.system().startsWith(Systems.FENCELOCK)) {
            return "";
        }
        return Reports.ratio(rate(cases, Systems.FENCELOCK, c.concurrency()) / c.perSecond()) + " / "
                + Reports.ratio(rate(cases, Systems.FENCELOCK_ASYNC, c.concurrency()) / c.perSecond());
    }

    static Optional<CaseResult> find(List<CaseResult> cases, String system, int concurrency) {
        return cases.stream()
                .filter(c -> c.system().equals(system) && c.concurrency() == concurrency)
                .findFirst();
    }

    static double rate(List<CaseResult> cases, String system, int concurrency) {
        return find(cases, system, concurrency).map(CaseResult::perSecond).orElse(Double.NaN);
    }

    private static double cpu(List<CaseResult> cases, String system, int concurrency) {
        return find(cases, system, concurrency).map(CaseResult::clientCpuMicros).orElse(Double.NaN);
    }

    static String met(boolean met) {
        return met ? "(met)" : "(**missed**)";
    }

    private static String percent(double share) {
        return Double.isNaN(share) ? "–" : String.format(Locale.ROOT, "%.0f%%", 100 * share);
    }

    private static double topShare(ZipfKeys zipf, int top) {
        double share = 0;
        for (int rank = 0; rank < Math.min(top, zipf.resources()); rank++) {
            share += zipf.probability(rank);
        }
        return share;
    }
}
