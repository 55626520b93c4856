package dev.fencelock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 1's workload (the design brief's: acquisitions arriving at a fixed rate on free
 * resources, each held {@code held ÷ rate}, open loop) for any {@link LockSystem}, so that stores
 * and libraries meet it in one harness. Every system is driven through its blocking calls: each
 * acquisition runs on one of {@link #LANES} threads, each with a worker of its own, and its release
 * runs on the same thread at its intended time (Curator's mutex is thread-bound). Acquisitions are
 * timed from their intended start, so a lane that falls behind is charged for it.
 */
final class SeedWorkloadScenario {

    private static final Logger logger = LoggerFactory.getLogger(SeedWorkloadScenario.class);

    /** Threads the acquisitions and releases are spread over, round robin. */
    static final int LANES = 64;

    private static final Duration WAIT = Duration.ofSeconds(10);

    private SeedWorkloadScenario() {}

    /**
     * What one system did under the workload.
     *
     * @param system the lock implementation
     * @param targetRate acquisitions per second offered
     * @param holdSeconds how long each lock was held
     * @param windowSeconds length of the measured window (after one hold time of ramp-up)
     * @param issued acquisitions issued in the window
     * @param completed of those, granted
     * @param errors of those, failed (including arrivals that found no free resource)
     * @param unfinished of those, neither granted nor failed when the run stopped waiting for them
     * @param acquire acquire latency from the intended start (ns)
     * @param release release latency from the intended release time (ns), releases due in the window
     * @param releaseErrors releases that failed, over the whole run
     * @param heldAtEnd locks held when the window ended
     * @param tokenRegressions grants whose fencing token was not larger than the resource's previous one
     * @param issuerLateMillis worst lag of the issuing thread behind its schedule
     * @param clientCpuNanos CPU of this JVM over the window
     * @param serverCpuNanos CPU of the system's store's servers over the window
     * @param requests what the store received over the window ({@link BenchEnvironment#requests})
     */
    record Result(
            String system,
            int targetRate,
            double holdSeconds,
            double windowSeconds,
            long issued,
            long completed,
            long errors,
            long unfinished,
            Histogram acquire,
            Histogram release,
            long releaseErrors,
            int heldAtEnd,
            long tokenRegressions,
            long issuerLateMillis,
            long clientCpuNanos,
            long serverCpuNanos,
            Map<String, Double> requests) {

        double achievedRate() {
            return this.completed / this.windowSeconds;
        }

        /** Per acquisition granted in the window (each with its release), or NaN. */
        double perAcquisition(double total) {
            return this.completed == 0 ? Double.NaN : total / this.completed;
        }
    }

    /** A thread of its own and a worker of its own. */
    private record Lane(ScheduledThreadPoolExecutor executor, LockSystem.Worker worker) {}

    static Result run(BenchEnvironment env, BenchSettings settings, LockSystem system, int rate, String prefix)
            throws Exception {
        List<Lane> lanes = new ArrayList<>();
        for (int i = 0; i < LANES; i++) {
            lanes.add(new Lane(
                    new ScheduledThreadPoolExecutor(1, DesignWorkloadScenario.daemon("bench-seed-" + i)),
                    system.newWorker()));
        }
        int resources = settings.resources();
        AtomicIntegerArray busy = new AtomicIntegerArray(resources);
        AtomicLongArray lastToken = new AtomicLongArray(resources);
        AtomicLong tokenRegressions = new AtomicLong();
        AtomicLong releaseErrors = new AtomicLong();
        AtomicInteger held = new AtomicInteger();
        AtomicLong next = new AtomicLong();
        Histogram release = new ConcurrentHistogram(TimeUnit.MINUTES.toNanos(5), 3);
        long holdNanos = settings.hold(rate).toNanos();
        long rampNanos = holdNanos;
        long windowNanos = settings.window().toNanos();
        long start = System.nanoTime();
        long windowStart = start + rampNanos;
        long windowEnd = windowStart + windowNanos;
        AtomicReference<Snapshot> before = new AtomicReference<>();
        AtomicReference<Snapshot> after = new AtomicReference<>();
        AtomicInteger heldAtEnd = new AtomicInteger(-1);
        ScheduledThreadPoolExecutor sampler =
                new ScheduledThreadPoolExecutor(1, DesignWorkloadScenario.daemon("bench-seed-sampler"));
        sampler.schedule(() -> before.set(Snapshot.of(env, system)), rampNanos, TimeUnit.NANOSECONDS);
        sampler.schedule(
                () -> {
                    after.set(Snapshot.of(env, system));
                    heldAtEnd.set(held.get());
                },
                rampNanos + windowNanos,
                TimeUnit.NANOSECONDS);
        sampler.scheduleAtFixedRate(
                () -> logger.info(
                        "Seed workload progress: {} held, {} tasks queued on the lanes",
                        held.get(),
                        lanes.stream()
                                .mapToInt(lane -> lane.executor().getQueue().size())
                                .sum()),
                5,
                5,
                TimeUnit.SECONDS);
        logger.info(
                "Seed workload: {} at {}/s on {} resources, hold {}, window {} s",
                system.name(),
                rate,
                resources,
                settings.hold(rate),
                windowNanos / 1e9);
        boolean checkTokens = system.hasFencingTokens();
        OpenLoopDriver.Result run = OpenLoopDriver.atRate(rate).run(rampNanos + windowNanos, rampNanos, intended -> {
            int resource = pickFree(busy, resources);
            if (resource < 0) {
                return CompletableFuture.failedFuture(new IllegalStateException("no free resource"));
            }
            Lane lane = lanes.get((int) (next.getAndIncrement() % LANES));
            CompletableFuture<Void> granted = new CompletableFuture<>();
            lane.executor().execute(() -> {
                LockSystem.Held lock;
                try {
                    lock = lane.worker().acquire(prefix + resource, WAIT);
                } catch (Exception ex) {
                    busy.set(resource, 0);
                    granted.completeExceptionally(ex);
                    return;
                }
                held.incrementAndGet();
                granted.complete(null);
                if (checkTokens && lastToken.getAndAccumulate(resource, lock.token(), Math::max) >= lock.token()) {
                    tokenRegressions.incrementAndGet();
                }
                long releaseAt = intended + holdNanos;
                lane.executor()
                        .schedule(
                                () -> {
                                    try {
                                        lane.worker().release(lock);
                                        if (releaseAt - windowStart >= 0 && releaseAt - windowEnd <= 0) {
                                            release.recordValue(Math.max(0, System.nanoTime() - releaseAt));
                                        }
                                    } catch (Exception ex) {
                                        releaseErrors.incrementAndGet();
                                    } finally {
                                        held.decrementAndGet();
                                        busy.set(resource, 0);
                                    }
                                },
                                Math.max(0, releaseAt - System.nanoTime()),
                                TimeUnit.NANOSECONDS);
            });
            return granted;
        });
        // Let the window's last acquisitions finish, then every lock be released at its time; a system
        // that fell behind gets one hold time and half a minute more, then what is still queued is dropped.
        long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (run.completed().get() + run.errors().get() < run.issued().get() && System.nanoTime() < settle) {
            Thread.sleep(50);
        }
        long unfinished =
                run.issued().get() - run.completed().get() - run.errors().get();
        sampler.shutdown();
        sampler.awaitTermination(30, TimeUnit.SECONDS);
        for (Lane lane : lanes) {
            lane.executor().shutdown();
        }
        long drained = System.nanoTime() + holdNanos + TimeUnit.SECONDS.toNanos(30);
        for (Lane lane : lanes) {
            if (!lane.executor().awaitTermination(Math.max(1, drained - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                int dropped = lane.executor().shutdownNow().size();
                logger.warn("Seed workload: {} dropped {} queued tasks of a lane", system.name(), dropped);
            }
        }
        for (Lane lane : lanes) {
            lane.executor().awaitTermination(30, TimeUnit.SECONDS);
            lane.worker().close();
        }
        Snapshot b = before.get();
        Snapshot a = after.get();
        return new Result(
                system.name(),
                rate,
                holdNanos / 1e9,
                run.seconds(),
                run.issued().get(),
                run.completed().get(),
                run.errors().get(),
                unfinished,
                run.latency(),
                release,
                releaseErrors.get(),
                heldAtEnd.get(),
                tokenRegressions.get(),
                run.issuerLateMillis(),
                (a == null || b == null) ? 0 : a.clientCpu - b.clientCpu,
                (a == null || b == null) ? 0 : a.serverCpu - b.serverCpu,
                (a == null || b == null) ? Map.of() : BenchEnvironment.delta(b.requests, a.requests));
    }

    private record Snapshot(long clientCpu, long serverCpu, Map<String, Double> requests) {

        static Snapshot of(BenchEnvironment env, LockSystem system) {
            return new Snapshot(BenchEnvironment.clientCpuNanos(), env.serverCpuNanos(system), env.requests(system));
        }
    }

    private static int pickFree(AtomicIntegerArray busy, int resources) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < 64; i++) {
            int candidate = random.nextInt(resources);
            if (busy.compareAndSet(candidate, 0, 1)) {
                return candidate;
            }
        }
        return -1;
    }
}
