package dev.fencelock.verification.checker;

import java.nio.file.Path;
import java.util.Map;

/**
 * Checks a finished run again from its directory alone: {@code java -cp ... CheckMain <run directory>}. The
 * campaign keeps the database's rows in {@value DatabaseSnapshot#WRITES_FILE} and {@value
 * DatabaseSnapshot#COUNTERS_FILE} beside the histories, so nobody has to take its word for a verdict.
 */
public final class CheckMain {

    private CheckMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: CheckMain <run directory>");
            System.exit(2);
        }
        Path directory = Path.of(args[0]);
        CheckResult result = HistoryChecker.check(HistoryFiles.read(directory), DatabaseSnapshot.read(directory));
        System.out.printf(
                "%s: %d invoked, %d ok, %d fail, %d info, %d unfinished (%d of those committed), %d rows%n",
                directory,
                result.invoked(),
                result.ok(),
                result.fail(),
                result.info(),
                result.unfinished(),
                result.unknownApplied(),
                result.committed());
        for (Map.Entry<Anomaly.Kind, Integer> entry : result.anomalyCounts().entrySet()) {
            System.out.println("  " + entry.getKey() + ": " + entry.getValue());
        }
        result.anomalies().stream().limit(20).forEach(anomaly -> System.out.println("    " + anomaly));
        System.out.println(result.valid() ? "valid" : "INVALID");
        System.exit(result.valid() ? 0 : 1);
    }
}
