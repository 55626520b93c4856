package dev.fencelock.benchmarks;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Scenario 7: skewed keys, closed loop. Each cycle locks a resource drawn from a Zipf distribution
 * (exponent {@link BenchSettings#zipfExponent()} over {@link BenchSettings#zipfResources()}
 * resources): the most popular few are wanted by several threads at once (contention) and are
 * locked again and again (reuse), the long tail rarely. Every hold is checked for a second
 * holder and, where the system has fencing tokens, for a token that did not grow; contention and
 * reuse are counted. Raw etcd is skipped: a put cannot wait for a key.
 */
public final class ZipfScenario {

    private ZipfScenario() {}

    public static List<CaseResult> run(BenchEnvironment env, BenchSettings settings, List<LockSystem> systems)
            throws Exception {
        ZipfKeys zipf = new ZipfKeys(settings.zipfResources(), settings.zipfExponent());
        List<LockSystem> waiting =
                systems.stream().filter(LockSystem::supportsWaiting).toList();
        return ClosedLoop.inRounds(
                "Scenario 7", settings.zipfThreads(), waiting, settings, (system, concurrency, run) -> {
                    String prefix = "/bench-s7/" + run + "/";
                    return ClosedLoop.runCase(
                            env,
                            system,
                            concurrency,
                            (thread, cycle) -> prefix + zipf.next(ThreadLocalRandom.current()),
                            new HoldChecks(system.hasFencingTokens()),
                            settings);
                });
    }
}
