package dev.fencelock.verification;

import dev.fencelock.verification.checker.CheckResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * One finished run.
 *
 * @param settings what was run
 * @param check what the checker found
 * @param elapsed from the workload's start to its stop
 * @param directory the run's histories, logs, result and chart
 * @param chart the timeline picture
 * @param faults every fault window, in words
 */
public record RunResult(
        CampaignSettings settings,
        CheckResult check,
        Duration elapsed,
        Path directory,
        Path chart,
        List<String> faults) {}
