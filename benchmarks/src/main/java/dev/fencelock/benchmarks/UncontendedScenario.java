package dev.fencelock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 2: uncontended lock cycles, closed loop. Each thread acquires and releases a key no one
 * else uses, as fast as it can; the four systems take turns at each concurrency, so every ratio
 * compares numbers measured minutes apart on the same machine state.
 */
public final class UncontendedScenario {

    private static final Logger logger = LoggerFactory.getLogger(UncontendedScenario.class);

    private static final Duration WAIT = Duration.ofSeconds(10);

    private UncontendedScenario() {}

    public static List<CaseResult> run(BenchEnvironment env, BenchSettings settings, List<LockSystem> systems)
            throws Exception {
        Map<String, CaseResult> results = new LinkedHashMap<>();
        int run = 0;
        for (int concurrency : settings.concurrencies()) {
            for (int round = 0; round < settings.rounds(); round++) {
                for (LockSystem system : inTurn(systems, round)) {
                    String prefix = "/bench-s2/" + (run++) + "/";
                    CaseResult result = runCase(env, system, concurrency, prefix, settings);
                    logger.info(
                            "Scenario 2: {} x{}: {} cycles/s, p50 {} ms, p99 {} ms, {} errors",
                            system.name(),
                            concurrency,
                            Reports.num(result.perSecond()),
                            Reports.ms(result.millis(50)),
                            Reports.ms(result.millis(99)),
                            result.errors());
                    results.merge(system.name() + "/" + concurrency, result, CaseResult::plus);
                }
            }
        }
        return new ArrayList<>(results.values());
    }

    /** Round 0 in the given order, round 1 reversed, and so on: drift of the machine hits every system alike. */
    static List<LockSystem> inTurn(List<LockSystem> systems, int round) {
        List<LockSystem> order = new ArrayList<>(systems);
        if (round % 2 == 1) {
            Collections.reverse(order);
        }
        return order;
    }

    static CaseResult runCase(
            BenchEnvironment env, LockSystem system, int concurrency, String prefix, BenchSettings settings)
            throws Exception {
        AtomicLong all = new AtomicLong();
        Histogram latency = new ConcurrentHistogram(TimeUnit.MINUTES.toNanos(5), 3);
        AtomicLong cycles = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        List<LockSystem.Worker> workers = new ArrayList<>();
        for (int i = 0; i < concurrency; i++) {
            workers.add(system.newWorker());
        }
        CountDownLatch ready = new CountDownLatch(concurrency);
        long[] window = new long[2];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < concurrency; i++) {
            LockSystem.Worker worker = workers.get(i);
            String threadPrefix = prefix + i + "/";
            Thread thread = new Thread(
                    () -> {
                        ready.countDown();
                        awaitQuietly(ready);
                        long measureFrom = window[0];
                        long end = window[1];
                        long n = 0;
                        while (true) {
                            long started = System.nanoTime();
                            if (started - end >= 0) {
                                break;
                            }
                            try {
                                LockSystem.Held held = worker.acquire(threadPrefix + (n++), WAIT);
                                worker.release(held);
                                long finished = System.nanoTime();
                                all.incrementAndGet();
                                if (started - measureFrom >= 0 && finished - end <= 0) {
                                    latency.recordValue(finished - started);
                                    cycles.incrementAndGet();
                                }
                            } catch (Exception ex) {
                                if (started - measureFrom >= 0) {
                                    errors.incrementAndGet();
                                }
                            }
                        }
                    },
                    "bench-s2-" + i);
            threads.add(thread);
        }
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        window[0] = start + settings.warmup().toNanos();
        window[1] = window[0] + settings.caseTime().toNanos();
        long clientCpu = BenchEnvironment.clientCpuNanos();
        long serverCpu = env.serverCpuNanos();
        java.util.Map<String, Double> requests = env.etcdRequests();
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(60));
        }
        clientCpu = BenchEnvironment.clientCpuNanos() - clientCpu;
        serverCpu = env.serverCpuNanos() - serverCpu;
        requests = BenchEnvironment.delta(requests, env.etcdRequests());
        workers.forEach(LockSystem.Worker::close);
        return new CaseResult(
                system.name(),
                concurrency,
                cycles.get(),
                settings.caseTime().toNanos() / 1e9,
                errors.get(),
                latency,
                0,
                "",
                clientCpu,
                serverCpu,
                all.get(),
                requests);
    }

    static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
