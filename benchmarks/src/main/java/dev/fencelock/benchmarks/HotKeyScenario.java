package dev.fencelock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 3: one hot key, N contenders that each acquire, release and queue again at once.
 * Hand-off latency is from the holder's release call to the moment the next holder's acquire
 * returns. Every acquisition checks that no one else holds the key and, where the system has
 * fencing tokens, that the token grew. Raw etcd puts cannot wait for a key and are skipped.
 */
public final class HotKeyScenario {

    private static final Logger logger = LoggerFactory.getLogger(HotKeyScenario.class);

    private static final Duration WAIT = Duration.ofSeconds(60);

    private HotKeyScenario() {}

    public static List<CaseResult> run(BenchEnvironment env, BenchSettings settings, List<LockSystem> systems)
            throws Exception {
        Map<String, CaseResult> results = new LinkedHashMap<>();
        int run = 0;
        for (int contenders : settings.contenders()) {
            for (int round = 0; round < settings.rounds(); round++) {
                for (LockSystem system : UncontendedScenario.inTurn(systems, round)) {
                    if (!system.supportsWaiting()) {
                        continue;
                    }
                    CaseResult result = runCase(env, system, contenders, "/bench-s3/hot-" + (run++), settings);
                    logger.info(
                            "Scenario 3: {} x{}: {} hand-offs/s, p50 {} ms, p99 {} ms, {} errors, {} violations ({})",
                            system.name(),
                            contenders,
                            Reports.num(result.perSecond()),
                            Reports.ms(result.millis(50)),
                            Reports.ms(result.millis(99)),
                            result.errors(),
                            result.violations(),
                            result.note());
                    results.merge(system.name() + "/" + contenders, result, CaseResult::plus);
                }
            }
        }
        return new ArrayList<>(results.values());
    }

    static CaseResult runCase(
            BenchEnvironment env, LockSystem system, int contenders, String key, BenchSettings settings)
            throws Exception {
        AtomicLong all = new AtomicLong();
        boolean checkTokens = system.hasFencingTokens();
        Histogram latency = new ConcurrentHistogram(TimeUnit.MINUTES.toNanos(5), 3);
        AtomicLong handoffs = new AtomicLong();
        AtomicLong selfHandoffs = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicLong violations = new AtomicLong();
        AtomicInteger holder = new AtomicInteger();
        AtomicLong lastToken = new AtomicLong(Long.MIN_VALUE);
        AtomicLong lastReleaseNanos = new AtomicLong();
        AtomicInteger lastReleaser = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        List<LockSystem.Worker> workers = new ArrayList<>();
        for (int i = 0; i < contenders; i++) {
            workers.add(system.newWorker());
        }
        CountDownLatch ready = new CountDownLatch(contenders);
        long[] window = new long[2];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < contenders; i++) {
            LockSystem.Worker worker = workers.get(i);
            int id = i + 1;
            threads.add(new Thread(
                    () -> {
                        ready.countDown();
                        UncontendedScenario.awaitQuietly(ready);
                        while (!stop.get()) {
                            LockSystem.Held held;
                            try {
                                held = worker.acquire(key, WAIT);
                            } catch (Exception ex) {
                                errors.incrementAndGet();
                                sleepQuietly(10);
                                continue;
                            }
                            long acquired = System.nanoTime();
                            all.incrementAndGet();
                            if (!holder.compareAndSet(0, id)) {
                                violations.incrementAndGet();
                            }
                            if (checkTokens) {
                                if (held.token() <= lastToken.get()) {
                                    violations.incrementAndGet();
                                }
                                lastToken.set(held.token());
                            }
                            long previousRelease = lastReleaseNanos.get();
                            if (previousRelease != 0 && acquired - window[0] >= 0 && acquired - window[1] <= 0) {
                                latency.recordValue(acquired - previousRelease);
                                handoffs.incrementAndGet();
                                if (lastReleaser.get() == id) {
                                    selfHandoffs.incrementAndGet();
                                }
                            }
                            if (acquired - window[1] > 0) {
                                stop.set(true);
                            }
                            holder.compareAndSet(id, 0);
                            lastReleaser.set(id);
                            lastReleaseNanos.set(System.nanoTime());
                            try {
                                worker.release(held);
                            } catch (Exception ex) {
                                errors.incrementAndGet();
                            }
                        }
                    },
                    "bench-s3-" + i));
        }
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        window[0] = start + settings.warmup().toNanos();
        window[1] = window[0] + settings.caseTime().toNanos();
        long clientCpu = BenchEnvironment.clientCpuNanos();
        long serverCpu = env.serverCpuNanos(system);
        java.util.Map<String, Double> requests = env.requests(system);
        threads.forEach(Thread::start);
        long joinDeadline = window[1] + TimeUnit.SECONDS.toNanos(90);
        for (Thread thread : threads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(joinDeadline - System.nanoTime())));
        }
        stop.set(true);
        threads.forEach(Thread::interrupt);
        clientCpu = BenchEnvironment.clientCpuNanos() - clientCpu;
        serverCpu = env.serverCpuNanos(system) - serverCpu;
        requests = BenchEnvironment.delta(requests, env.requests(system));
        workers.forEach(LockSystem.Worker::close);
        long total = handoffs.get();
        String note = total == 0
                ? ""
                : String.format(java.util.Locale.ROOT, "%.0f%% self", 100.0 * selfHandoffs.get() / total);
        return new CaseResult(
                system.name(),
                contenders,
                total,
                settings.caseTime().toNanos() / 1e9,
                errors.get(),
                latency,
                violations.get(),
                note,
                clientCpu,
                serverCpu,
                all.get(),
                requests);
    }

    static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
