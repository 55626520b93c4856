package dev.fencelock.benchmarks;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Everything one run measured; a scenario that was not run is {@code null} or empty.
 *
 * @param settings the sizes used
 * @param environment machine and versions, one line each
 * @param workload scenario 1, one result per rate
 * @param uncontended scenario 2
 * @param hotKey scenario 3
 * @param failover scenario 4
 * @param degraded scenario 5
 * @param relock scenario 6
 * @param zipf scenario 7
 */
public record BenchmarkReport(
        BenchSettings settings,
        List<String> environment,
        List<DesignWorkloadScenario.Result> workload,
        List<CaseResult> uncontended,
        List<CaseResult> hotKey,
        FailoverScenario.@Nullable Result failover,
        DegradedScenario.@Nullable Result degraded,
        List<CaseResult> relock,
        List<CaseResult> zipf) {}
