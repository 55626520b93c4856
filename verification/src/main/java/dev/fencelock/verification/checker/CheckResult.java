package dev.fencelock.verification.checker;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What the checker found in one run.
 *
 * @param invoked operations invoked
 * @param ok acknowledged increments
 * @param fail operations known not applied
 * @param info operations whose commit did not answer normally
 * @param unfinished operations still open when the workers stopped
 * @param unknownApplied info and unfinished operations that the history table shows committed
 * @param committed rows in the history table
 * @param failReasons fail counts by reason
 * @param infoReasons info counts by reason
 * @param anomalies every violation found; empty for a correct run
 * @param overlappingHolds pairs of operations of one key that both held the lock by their own account at once
 *     (acquire had returned, release not yet been called): what locks alone allow under pauses and partitions
 * @param availability fraction of the run's whole seconds in which at least one lock was acquired
 * @param recoveries per fault: milliseconds from its heal until every key had an acknowledged increment again
 * @param problems history lines that could not be read
 */
public record CheckResult(
        int invoked,
        int ok,
        int fail,
        int info,
        int unfinished,
        int unknownApplied,
        int committed,
        Map<String, Integer> failReasons,
        Map<String, Integer> infoReasons,
        List<Anomaly> anomalies,
        long overlappingHolds,
        double availability,
        List<Recovery> recoveries,
        List<String> problems) {

    /**
     * How long the workload took to recover after one fault.
     *
     * @param fault the fault
     * @param millis from its heal until every key had an acknowledged increment completed after the heal; NaN if
     *     some key never had one before the run ended
     * @param outageMillis the longest stretch without any acknowledged increment, from the fault's start until every
     *     key recovered (or the run ended): how long the service as a whole stood still
     */
    public record Recovery(FaultWindow fault, double millis, double outageMillis) {}

    /** Whether the run is free of anomalies. */
    public boolean valid() {
        return anomalies.isEmpty();
    }

    /** Anomaly counts by kind. */
    public Map<Anomaly.Kind, Integer> anomalyCounts() {
        Map<Anomaly.Kind, Integer> counts = new EnumMap<>(Anomaly.Kind.class);
        anomalies.forEach(anomaly -> counts.merge(anomaly.kind(), 1, Integer::sum));
        return counts;
    }
}
