package dev.fencelock.verification.checker;

import java.util.List;
import java.util.Map;

/**
 * Everything the workers and the orchestrator wrote about one run.
 *
 * @param operations every invoked operation by id
 * @param faults the fault windows in the order they began
 * @param runStart when the workload started
 * @param runEnd when it was told to stop
 * @param leaseTtl the workers' lock lease TTL in nanoseconds; 0 if the run did not record it
 * @param problems lines that could not be read or did not fit the history (a worker bug, not an anomaly)
 */
public record History(
        Map<String, Operation> operations,
        List<FaultWindow> faults,
        long runStart,
        long runEnd,
        long leaseTtl,
        List<String> problems) {}
