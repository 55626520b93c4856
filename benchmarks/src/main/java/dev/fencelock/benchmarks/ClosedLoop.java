package dev.fencelock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closed-loop lock cycles (acquire, release, again at once) on N threads, each with its own worker
 * of the system under test; what differs between scenarios is which resource each cycle locks
 * ({@link KeyPattern}) and whether threads can meet on one ({@link HoldChecks}).
 */
final class ClosedLoop {

    private static final Logger logger = LoggerFactory.getLogger(ClosedLoop.class);

    /** How long one acquisition may wait for a holder. */
    static final Duration WAIT = Duration.ofSeconds(10);

    private ClosedLoop() {}

    /** The resource that thread {@code thread} locks in its {@code cycle}-th cycle. */
    @FunctionalInterface
    interface KeyPattern {
        String key(int thread, long cycle);
    }

    /** Runs one case of one system at one concurrency; {@code run} numbers the cases of a scenario. */
    @FunctionalInterface
    interface CaseRunner {
        CaseResult run(LockSystem system, int concurrency, int run) throws Exception;
    }

    /**
     * Runs every case in rounds: at each concurrency, all {@code systems} in turn, their order
     * reversed every other round so drift of the machine hits every system alike; the rounds of a
     * case are merged.
     */
    static List<CaseResult> inRounds(
            String scenario,
            List<Integer> concurrencies,
            List<LockSystem> systems,
            BenchSettings settings,
            CaseRunner runner)
            throws Exception {
        Map<String, CaseResult> results = new LinkedHashMap<>();
        int run = 0;
        for (int concurrency : concurrencies) {
            for (int round = 0; round < settings.rounds(); round++) {
                for (LockSystem system : UncontendedScenario.inTurn(systems, round)) {
                    CaseResult result = runner.run(system, concurrency, run++);
                    logger.info(
                            "{}: {} x{}: {} cycles/s, p50 {} ms, p99 {} ms, {} errors, {} violations",
                            scenario,
                            system.name(),
                            concurrency,
                            Reports.num(result.perSecond()),
                            Reports.ms(result.millis(50)),
                            Reports.ms(result.millis(99)),
                            result.errors(),
                            result.violations());
                    results.merge(system.name() + "/" + concurrency, result, CaseResult::plus);
                }
            }
        }
        return new ArrayList<>(results.values());
    }

    /**
     * One case: {@code concurrency} threads cycle for the warm-up and the measured window; client
     * CPU, server CPU and etcd's requests are taken over the whole case. With {@code checks},
     * every hold is checked for a second holder and a token that did not grow.
     */
    static CaseResult runCase(
            BenchEnvironment env,
            LockSystem system,
            int concurrency,
            KeyPattern keys,
            @Nullable HoldChecks checks,
            BenchSettings settings)
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
            int thread = i;
            threads.add(new Thread(
                    () -> {
                        ready.countDown();
                        UncontendedScenario.awaitQuietly(ready);
                        long measureFrom = window[0];
                        long end = window[1];
                        long n = 0;
                        while (true) {
                            long started = System.nanoTime();
                            if (started - end >= 0) {
                                break;
                            }
                            String key = keys.key(thread, n++);
                            HoldChecks.Resource resource = (checks != null) ? checks.arriving(key) : null;
                            try {
                                LockSystem.Held held = worker.acquire(key, WAIT);
                                if (resource != null) {
                                    checks.acquired(resource, thread + 1, held.token());
                                    checks.releasing(resource, thread + 1);
                                }
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
                            } finally {
                                if (resource != null) {
                                    checks.left(resource);
                                }
                            }
                        }
                    },
                    "bench-loop-" + i));
        }
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        window[0] = start + settings.warmup().toNanos();
        window[1] = window[0] + settings.caseTime().toNanos();
        long clientCpu = BenchEnvironment.clientCpuNanos();
        long serverCpu = env.serverCpuNanos(system);
        Map<String, Double> requests = env.requests(system);
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(60));
        }
        clientCpu = BenchEnvironment.clientCpuNanos() - clientCpu;
        serverCpu = env.serverCpuNanos(system) - serverCpu;
        requests = BenchEnvironment.delta(requests, env.requests(system));
        workers.forEach(LockSystem.Worker::close);
        CaseResult result = new CaseResult(
                system.name(),
                concurrency,
                cycles.get(),
                settings.caseTime().toNanos() / 1e9,
                errors.get(),
                latency,
                (checks != null) ? checks.violations() : 0,
                "",
                clientCpu,
                serverCpu,
                all.get(),
                requests);
        return (checks != null) ? result.withSharing(checks.sharing()) : result;
    }
}
