package dev.fencelock.benchmarks;

import java.util.List;

/**
 * Scenario 6: re-locking one's own resource, closed loop. Each thread acquires and releases one
 * fixed resource of its own again and again, as a worker does with the entity it works on; nobody
 * else uses it. Unlike scenario 2's fresh key per cycle, the release of one cycle and the
 * acquisition of the next are of the same resource. Every hold is checked (a token that grows on
 * each re-lock, no second holder).
 */
public final class RelockScenario {

    private RelockScenario() {}

    public static List<CaseResult> run(BenchEnvironment env, BenchSettings settings, List<LockSystem> systems)
            throws Exception {
        return ClosedLoop.inRounds(
                "Scenario 6", settings.concurrencies(), systems, settings, (system, concurrency, run) -> {
                    String prefix = "/bench-s6/" + run + "/";
                    return ClosedLoop.runCase(
                            env,
                            system,
                            concurrency,
                            (thread, cycle) -> prefix + thread,
                            new HoldChecks(system.hasFencingTokens()),
                            settings);
                });
    }
}
