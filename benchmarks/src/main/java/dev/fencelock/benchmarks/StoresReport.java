package dev.fencelock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/** Renders a {@link StoresComparison.Result} as markdown tables; every ratio is between cases of the same run. */
final class StoresReport {

    private StoresReport() {}

    static void write(StoresComparison.Result result, Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, markdown(result));
    }

    static String markdown(StoresComparison.Result result) {
        StringBuilder md = new StringBuilder();
        md.append("### Environment\n\n");
        result.environment().forEach(line -> md.append("- ").append(line).append('\n'));
        md.append('\n');
        md.append("*Requests*: for ZooKeeper the reads (pings and syncs included) and the writes (failed ones"
                + " included) that its members answered to clients; for etcd its gRPC messages per method. *Commits*:"
                + " ZooKeeper's transactions (the zxid's counter, which also counts the leader's own deletions of"
                + " empty container nodes, of this case's keys or earlier ones), etcd's committed raft proposals."
                + " Per acquisition (with its release) over the whole case, warm-up included; over the window in"
                + " the seed workload.\n\n");
        if (!result.seed().isEmpty()) {
            seed(md, result.seed(), result.settings());
        }
        if (!result.uncontended().isEmpty()) {
            cycles(
                    md,
                    "Scenario 2 — fresh keys (acquire + release of a new key each cycle, closed loop)",
                    "threads",
                    "cycles/s",
                    result.uncontended());
        }
        if (!result.relock().isEmpty()) {
            cycles(
                    md,
                    "Scenario 6 — re-lock of one's own key (one fixed key per thread, closed loop)",
                    "threads",
                    "cycles/s",
                    result.relock());
        }
        if (!result.hotKey().isEmpty()) {
            cycles(
                    md,
                    "Scenario 3 — one hot key (N contenders acquire → release → queue again)",
                    "contenders",
                    "hand-offs/s",
                    result.hotKey());
        }
        return md.toString();
    }

    private static void seed(StringBuilder md, List<SeedWorkloadScenario.Result> results, BenchSettings settings) {
        md.append(String.format(
                Locale.ROOT,
                "### Seed workload — open loop, %,d resources, %,d locks held at steady state\n\n"
                        + "Each acquisition runs on one of %d threads (round robin) through the system's blocking"
                        + " calls, its release on the same thread at its intended time; latencies from the intended"
                        + " start.\n\n",
                settings.resources(),
                settings.held(),
                SeedWorkloadScenario.LANES));
        StringBuilder header = new StringBuilder("| metric |");
        StringBuilder rule = new StringBuilder("|---|");
        for (SeedWorkloadScenario.Result r : results) {
            header.append(' ').append(r.system()).append(" |");
            rule.append("---:|");
        }
        md.append(header).append('\n').append(rule).append('\n');
        row(md, results, "offered rate (/s)", r -> Reports.num(r.targetRate()));
        row(
                md,
                results,
                "hold time / window (s)",
                r -> Reports.num(r.holdSeconds()) + " / " + Reports.num(r.windowSeconds()));
        row(md, results, "achieved rate (granted/s)", r -> Reports.num(r.achievedRate()));
        row(md, results, "acquire p50 (ms)", r -> Reports.ms(Reports.millis(r.acquire(), 50)));
        row(md, results, "acquire p95 (ms)", r -> Reports.ms(Reports.millis(r.acquire(), 95)));
        row(md, results, "acquire p99 (ms)", r -> Reports.ms(Reports.millis(r.acquire(), 99)));
        row(md, results, "acquire p99.9 (ms)", r -> Reports.ms(Reports.millis(r.acquire(), 99.9)));
        row(md, results, "acquire max (ms)", r -> Reports.ms(Reports.millis(r.acquire(), 100)));
        row(
                md,
                results,
                "release p50 / p99 (ms)",
                r -> Reports.ms(Reports.millis(r.release(), 50)) + " / " + Reports.ms(Reports.millis(r.release(), 99)));
        row(md, results, "failed acquisitions (of issued)", r -> r.errors() + " of " + r.issued());
        row(md, results, "unfinished 10 s after the window", r -> Long.toString(r.unfinished()));
        row(md, results, "failed releases", r -> Long.toString(r.releaseErrors()));
        row(md, results, "fencing-token regressions", r -> Long.toString(r.tokenRegressions()));
        row(md, results, "locks held at end of window", r -> String.format(Locale.ROOT, "%,d", r.heldAtEnd()));
        row(md, results, "requests per acquisition", r -> perOperation(r.requests(), r.completed()));
        row(md, results, "commits per acquisition", r -> commits(r.requests(), r.completed()));
        row(md, results, "client CPU µs per acquisition", r -> Reports.num(r.perAcquisition(r.clientCpuNanos() / 1e3)));
        row(md, results, "server CPU µs per acquisition", r -> Reports.num(r.perAcquisition(r.serverCpuNanos() / 1e3)));
        row(md, results, "issuer lag, worst (ms)", r -> Long.toString(r.issuerLateMillis()));
        md.append('\n');
    }

    private static void row(
            StringBuilder md,
            List<SeedWorkloadScenario.Result> results,
            String metric,
            Function<SeedWorkloadScenario.Result, String> value) {
        md.append("| ").append(metric).append(" |");
        results.forEach(r -> md.append(' ').append(value.apply(r)).append(" |"));
        md.append('\n');
    }

    private static void cycles(StringBuilder md, String title, String count, String unit, List<CaseResult> cases) {
        md.append("### ").append(title).append("\n\n");
        md.append("| ")
                .append(count)
                .append(" | system | ")
                .append(unit)
                .append(" | per round | p50 ms | p99 ms | p99.9 ms | errors | double holders / token regressions |"
                        + " client CPU µs/acq. | server CPU µs/acq. | requests per acq. | commits per acq. |"
                        + " ÷ Curator | ÷ jetcd Lock |\n");
        md.append("|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n");
        for (CaseResult c : cases) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %d | %s | %s | %s | %s | %s | %s | %d | %d | %s | %s | %s | %s | %s | %s |\n",
                    c.concurrency(),
                    c.system() + (c.note().isEmpty() ? "" : " (" + c.note() + ")"),
                    Reports.num(c.perSecond()),
                    c.roundRatesText(),
                    Reports.ms(c.millis(50)),
                    Reports.ms(c.millis(99)),
                    Reports.ms(c.millis(99.9)),
                    c.errors(),
                    c.violations(),
                    Reports.num(c.clientCpuMicros()),
                    Reports.num(c.serverCpuMicros()),
                    perOperation(c.etcdRequests(), c.allOperations()),
                    commits(c.etcdRequests(), c.allOperations()),
                    Reports.ratio(c.perSecond() / CycleTables.rate(cases, ZooKeeperSystems.CURATOR, c.concurrency())),
                    Reports.ratio(c.perSecond() / CycleTables.rate(cases, Systems.JETCD_LOCK, c.concurrency()))));
        }
        md.append('\n');
    }

    /** Requests per operation, commits left out, e.g. {@code "Range 1.00, Txn 2.00"} or {@code "reads 2.10, writes 2.00"}. */
    static String perOperation(Map<String, Double> counts, long operations) {
        if (operations == 0) {
            return "–";
        }
        StringBuilder text = new StringBuilder();
        counts.forEach((method, count) -> {
            double perOp = count / operations;
            if (!method.equals(BenchEnvironment.COMMITS) && perOp >= 0.01) {
                text.append(text.length() == 0 ? "" : ", ")
                        .append(method)
                        .append(' ')
                        .append(String.format(Locale.ROOT, "%.2f", perOp));
            }
        });
        return text.toString();
    }

    static String commits(Map<String, Double> counts, long operations) {
        Double commits = counts.get(BenchEnvironment.COMMITS);
        return operations == 0 || commits == null ? "–" : String.format(Locale.ROOT, "%.2f", commits / operations);
    }
}
