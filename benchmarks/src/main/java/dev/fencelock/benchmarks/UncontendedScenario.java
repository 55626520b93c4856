package dev.fencelock.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Scenario 2: uncontended lock cycles, closed loop. Each thread acquires and releases a key no one
 * else uses, as fast as it can; the four systems take turns at each concurrency, so every ratio
 * compares numbers measured minutes apart on the same machine state.
 */
public final class UncontendedScenario {

    private UncontendedScenario() {}

    public static List<CaseResult> run(BenchEnvironment env, BenchSettings settings, List<LockSystem> systems)
            throws Exception {
        return ClosedLoop.inRounds(
                "Scenario 2",
                settings.concurrencies(),
                systems,
                settings,
                (system, concurrency, run) -> runCase(env, system, concurrency, "/bench-s2/" + run + "/", settings));
    }

    /** Round 0 in the given order, round 1 reversed, and so on: drift of the machine hits every system alike. */
    static List<LockSystem> inTurn(List<LockSystem> systems, int round) {
        List<LockSystem> order = new ArrayList<>(systems);
        if (round % 2 == 1) {
            Collections.reverse(order);
        }
        return order;
    }

    /** A fresh key every cycle: {@code prefix + thread + "/" + cycle}. */
    static CaseResult runCase(
            BenchEnvironment env, LockSystem system, int concurrency, String prefix, BenchSettings settings)
            throws Exception {
        return ClosedLoop.runCase(
                env, system, concurrency, (thread, cycle) -> prefix + thread + "/" + cycle, null, settings);
    }

    static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
