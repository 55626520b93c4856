package dev.fencelock.benchmarks;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.test.etcd.EtcdCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenario 1, the design brief's workload, open loop: acquisitions arrive at a fixed rate on
 * resources that are free (an uncontended acquire, as the brief budgets it), each lock is held for
 * {@code hold} and then released, so {@code rate × hold} locks are held at steady state. The
 * measurement window starts after one hold time of ramp-up.
 */
public final class DesignWorkloadScenario {

    private static final Logger logger = LoggerFactory.getLogger(DesignWorkloadScenario.class);

    static final String KEEP_ALIVE_MSGS = "grpc_server_msg_received_total";
    static final String KEEP_ALIVE_STREAMS = "grpc_server_started_total";
    static final String KEEP_ALIVE_FILTER = "grpc_method=\"LeaseKeepAlive\"";

    private DesignWorkloadScenario() {}

    /** What runs beside the workload (scenario 5's maintenance): told when the measured window starts and ends. */
    interface WindowHooks {

        WindowHooks NONE = new WindowHooks() {};

        /** The measured window starts now ({@link System#nanoTime()} {@code windowStart}). */
        default void windowStarted(long windowStart) {}

        /** The measured window is over. */
        default void windowEnded() {}

        /** An acquisition intended to start at {@code intended} was granted {@code latency} ns after it. */
        default void acquired(long intended, long latency) {}
    }

    /**
     * What scenario 1 measured.
     *
     * @param targetRate acquisitions per second asked for
     * @param holdSeconds how long each lock was held
     * @param windowSeconds length of the measurement window
     * @param issued acquisitions issued in the window
     * @param completed of those, granted
     * @param errors of those, failed
     * @param acquire acquire latency from intended start (ns)
     * @param release release latency (ns) from the intended release time to the store's answer
     * @param heldAtEnd locks held when the window ended
     * @param sessions session leases of the client when the window ended
     * @param keepAliveMessages keep-alive requests etcd received in the window
     * @param keepAliveStreams keep-alive streams etcd started in the window
     * @param issuerLateMillis worst lag of the issuing thread behind its schedule
     * @param heapBytesPerLock client heap per held lock, from a separate measurement
     * @param heapLocks locks held for that measurement
     * @param tokenRegressions grants whose fencing token was not larger than the resource's previous one
     */
    public record Result(
            int targetRate,
            double holdSeconds,
            double windowSeconds,
            long issued,
            long completed,
            long errors,
            Histogram acquire,
            Histogram release,
            int heldAtEnd,
            int sessions,
            double keepAliveMessages,
            double keepAliveStreams,
            long issuerLateMillis,
            double heapBytesPerLock,
            int heapLocks,
            long tokenRegressions) {

        /** A rate whose run could not even start or finish. */
        static Result failed(int rate, BenchSettings settings, double heapBytesPerLock, Exception cause) {
            Histogram empty = new Histogram(3);
            logger.warn("Recording scenario 1 at {}/s as failed: {}", rate, cause.toString());
            return new Result(
                    rate,
                    settings.hold(rate).toMillis() / 1000.0,
                    settings.window().toMillis() / 1000.0,
                    0,
                    0,
                    -1,
                    empty,
                    empty,
                    -1,
                    -1,
                    Double.NaN,
                    Double.NaN,
                    0,
                    heapBytesPerLock,
                    settings.heapLocks(),
                    0);
        }

        public double achievedRate() {
            return this.completed / this.windowSeconds;
        }

        public double keepAlivesPerSecond() {
            return this.keepAliveMessages / this.windowSeconds;
        }
    }

    /** Measures heap per lock once, then runs the workload at each of the settings' rates. */
    public static List<Result> run(BenchEnvironment env, BenchSettings settings) throws Exception {
        double heapBytesPerLock = HeapPerLock.measure(env, settings.heapLocks());
        List<Result> results = new ArrayList<>();
        for (int rate : settings.rates()) {
            awaitEtcdRecovered(env);
            try {
                results.add(run(env, settings, rate, heapBytesPerLock));
            } catch (Exception ex) {
                // An overloaded etcd can refuse even the warm-up: report the rate as failed, go on with the next.
                logger.error("Scenario 1 at {}/s failed", rate, ex);
                results.add(Result.failed(rate, settings, heapBytesPerLock, ex));
            }
        }
        return results;
    }

    /**
     * Waits (up to two minutes) until etcd grants and revokes a lease again: after an overload it
     * refuses requests ("too many requests") until it has applied its backlog, and the next rate
     * must not start inside that.
     */
    static void awaitEtcdRecovered(BenchEnvironment env) throws InterruptedException {
        awaitEtcdRecovered(env.endpoints());
    }

    /** {@link #awaitEtcdRecovered(BenchEnvironment)} for any cluster. */
    static void awaitEtcdRecovered(List<String> endpoints) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        try (io.etcd.jetcd.Client client = Systems.jetcd(endpoints)) {
            while (System.nanoTime() - deadline < 0) {
                try {
                    long lease = client.getLeaseClient()
                            .grant(5)
                            .get(2, TimeUnit.SECONDS)
                            .getID();
                    client.getLeaseClient().revoke(lease).get(2, TimeUnit.SECONDS);
                    return;
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex) {
                    logger.info("etcd not recovered yet: {}", ex.getMessage());
                    Thread.sleep(1000);
                }
            }
        }
    }

    static Result run(BenchEnvironment env, BenchSettings settings, int rate, double heapBytesPerLock)
            throws Exception {
        return run(env.etcd(), settings, rate, heapBytesPerLock, "/bench-s1-" + rate, WindowHooks.NONE);
    }

    /**
     * Runs the workload at {@code rate} against {@code cluster} (every member's endpoint, running or
     * not, as an application would list them), under {@code namespace}, calling {@code hooks}.
     */
    static Result run(
            EtcdCluster cluster,
            BenchSettings settings,
            int rate,
            double heapBytesPerLock,
            String namespace,
            WindowHooks hooks)
            throws Exception {
        try (Systems.FenceLockSystem system = Systems.fenceLock(cluster.endpoints(), namespace)) {
            LockClient client = system.client();
            client.acquire(LockRequest.of("warm-up")).release();
            int resources = settings.resources();
            AtomicIntegerArray busy = new AtomicIntegerArray(resources);
            // Tokens are etcd revisions: each grant of a resource must carry a larger one than the last.
            AtomicLongArray lastToken = new AtomicLongArray(resources);
            AtomicLong tokenRegressions = new AtomicLong();
            Map<Integer, LockLease> held = new ConcurrentHashMap<>();
            Histogram release = new ConcurrentHistogram(TimeUnit.MINUTES.toNanos(5), 3);
            AtomicLong noFreeResource = new AtomicLong();
            // Releases are open loop too: each is sent at its intended time and never waits for another.
            ScheduledThreadPoolExecutor releaser = new ScheduledThreadPoolExecutor(2, daemon("bench-release"));
            releaser.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            releaser.setRemoveOnCancelPolicy(true);
            long holdNanos = settings.hold(rate).toNanos();
            long rampNanos = holdNanos;
            long windowNanos = settings.window().toNanos();
            AtomicReference<double[]> before = new AtomicReference<>();
            AtomicReference<double[]> after = new AtomicReference<>();
            AtomicReference<int[]> heldSample = new AtomicReference<>();
            ScheduledThreadPoolExecutor sampler = new ScheduledThreadPoolExecutor(1, daemon("bench-sampler"));
            AtomicLong granted = new AtomicLong();
            AtomicLong failed = new AtomicLong();
            AtomicLong released = new AtomicLong();
            AtomicReference<Throwable> firstFailure = new AtomicReference<>();
            sampler.scheduleAtFixedRate(
                    () -> logger.info(
                            "Scenario 1 progress: {} granted, {} failed, {} released, {} held{}",
                            granted.get(),
                            failed.get(),
                            released.get(),
                            held.size(),
                            firstFailure.get() == null ? "" : "; first failure: " + firstFailure.get()),
                    5,
                    5,
                    TimeUnit.SECONDS);
            long start = System.nanoTime();
            sampler.schedule(
                    () -> {
                        before.set(keepAlives(cluster));
                        hooks.windowStarted(start + rampNanos);
                    },
                    rampNanos,
                    TimeUnit.NANOSECONDS);
            sampler.schedule(
                    () -> {
                        hooks.windowEnded();
                        after.set(keepAlives(cluster));
                        heldSample.set(new int[] {
                            client.heldCount(), system.backend().sessions().size()
                        });
                    },
                    rampNanos + windowNanos,
                    TimeUnit.NANOSECONDS);
            logger.info(
                    "Scenario 1: {} acquisitions/s on {} resources, hold {} ({} held at steady state), ramp {} s,"
                            + " window {} s",
                    rate,
                    resources,
                    settings.hold(rate),
                    settings.held(),
                    rampNanos / 1e9,
                    windowNanos / 1e9);
            OpenLoopDriver.Result run = OpenLoopDriver.atRate(rate)
                    .run(rampNanos + windowNanos, rampNanos, intended -> {
                        int resource = pickFree(busy, resources);
                        if (resource < 0) {
                            noFreeResource.incrementAndGet();
                            return CompletableFuture.failedFuture(new IllegalStateException("no free resource"));
                        }
                        return client.acquireAsync(LockRequest.of("res-" + resource))
                                .whenComplete((lease, failure) -> {
                                    if (failure != null) {
                                        failed.incrementAndGet();
                                        firstFailure.compareAndSet(null, failure);
                                        busy.set(resource, 0);
                                        return;
                                    }
                                    granted.incrementAndGet();
                                    hooks.acquired(intended, System.nanoTime() - intended);
                                    if (lastToken.getAndAccumulate(resource, lease.fencingToken(), Math::max)
                                            >= lease.fencingToken()) {
                                        tokenRegressions.incrementAndGet();
                                    }
                                    held.put(resource, lease);
                                    long releaseAt = intended + holdNanos;
                                    releaser.schedule(
                                            () -> {
                                                if (held.remove(resource, lease)) {
                                                    lease.releaseAsync().whenComplete((ok, error) -> {
                                                        released.incrementAndGet();
                                                        release.recordValue(Math.max(0, System.nanoTime() - releaseAt));
                                                        busy.set(resource, 0);
                                                    });
                                                } else {
                                                    busy.set(resource, 0);
                                                }
                                            },
                                            Math.max(0, releaseAt - System.nanoTime()),
                                            TimeUnit.NANOSECONDS);
                                });
                    });
            // Let the last acquisitions of the window finish before reading the counters.
            long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (run.completed().get() + run.errors().get() < run.issued().get() && System.nanoTime() < settle) {
                Thread.sleep(50);
            }
            sampler.shutdown();
            sampler.awaitTermination(10, TimeUnit.SECONDS);
            releaser.shutdown();
            releaser.awaitTermination(30, TimeUnit.SECONDS);
            releaseAll(held);
            double[] b = before.get();
            double[] a = after.get();
            int[] sample = heldSample.get();
            if (noFreeResource.get() > 0) {
                logger.warn("{} arrivals found no free resource", noFreeResource.get());
            }
            return new Result(
                    rate,
                    settings.hold(rate).toMillis() / 1000.0,
                    run.seconds(),
                    run.issued().get(),
                    run.completed().get(),
                    run.errors().get(),
                    run.latency(),
                    release,
                    sample == null ? -1 : sample[0],
                    sample == null ? -1 : sample[1],
                    (a == null || b == null) ? Double.NaN : a[0] - b[0],
                    (a == null || b == null) ? Double.NaN : a[1] - b[1],
                    run.issuerLateMillis(),
                    heapBytesPerLock,
                    settings.heapLocks(),
                    tokenRegressions.get());
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

    private static double[] keepAlives(EtcdCluster cluster) {
        return new double[] {
            BenchEnvironment.etcdMetric(cluster, KEEP_ALIVE_MSGS, KEEP_ALIVE_FILTER),
            BenchEnvironment.etcdMetric(cluster, KEEP_ALIVE_STREAMS, KEEP_ALIVE_FILTER)
        };
    }

    /** Releases what is still held, without blocking per lock, so the session lease is not revoked with thousands of keys. */
    static void releaseAll(Map<Integer, LockLease> held) throws Exception {
        Semaphore inFlight = new Semaphore(512);
        List<CompletableFuture<Boolean>> pending = new ArrayList<>();
        for (LockLease lease : held.values()) {
            inFlight.acquire();
            pending.add(lease.releaseAsync().whenComplete((released, failure) -> inFlight.release()));
        }
        held.clear();
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                .handle((v, f) -> null)
                .get(2, TimeUnit.MINUTES);
    }

    static java.util.concurrent.ThreadFactory daemon(String name) {
        AtomicLong counter = new AtomicLong();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
