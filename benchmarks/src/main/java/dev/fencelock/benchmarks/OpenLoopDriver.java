package dev.fencelock.benchmarks;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Issues operations at a fixed arrival rate and measures each from its <em>intended</em> start
 * time, so a stalled system is charged for every operation it delayed (no coordinated omission).
 * Operations are asynchronous: the issuing thread never waits for one to finish.
 */
public final class OpenLoopDriver {

    private final double ratePerSecond;

    private OpenLoopDriver(double ratePerSecond) {
        this.ratePerSecond = ratePerSecond;
    }

    public static OpenLoopDriver atRate(double ratePerSecond) {
        return new OpenLoopDriver(ratePerSecond);
    }

    /**
     * Runs {@code operation} for {@code totalNanos}; latencies of operations intended to start at or
     * after {@code measureFromNanos} (relative to the start) are recorded.
     *
     * @param operation given the operation's intended start ({@link System#nanoTime()} scale); returns
     *     its completion
     */
    public Result run(long totalNanos, long measureFromNanos, LongFunction<CompletableFuture<?>> operation) {
        Histogram latency = new ConcurrentHistogram(TimeUnit.MINUTES.toNanos(5), 3);
        AtomicLong completed = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicLong issued = new AtomicLong();
        double intervalNanos = 1e9 / this.ratePerSecond;
        long start = System.nanoTime();
        long measureFrom = start + measureFromNanos;
        long end = start + totalNanos;
        long lateNanosMax = 0;
        for (long i = 0; ; i++) {
            long intended = start + (long) (i * intervalNanos);
            if (intended - end >= 0) {
                break;
            }
            long now = System.nanoTime();
            if (intended - now > 0) {
                LockSupport.parkNanos(intended - now);
            } else {
                lateNanosMax = Math.max(lateNanosMax, now - intended);
            }
            boolean measured = intended - measureFrom >= 0;
            if (measured) {
                issued.incrementAndGet();
            }
            CompletableFuture<?> done;
            try {
                done = operation.apply(intended);
            } catch (RuntimeException ex) {
                done = CompletableFuture.failedFuture(ex);
            }
            done.whenComplete((value, failure) -> {
                if (!measured) {
                    return;
                }
                if (failure != null) {
                    errors.incrementAndGet();
                } else {
                    latency.recordValue(Math.max(0, System.nanoTime() - intended));
                    completed.incrementAndGet();
                }
            });
        }
        return new Result(
                issued,
                completed,
                errors,
                latency,
                (end - measureFrom) / 1e9,
                TimeUnit.NANOSECONDS.toMillis(lateNanosMax));
    }

    /**
     * What a run measured. Counters keep counting while late operations finish.
     *
     * @param issued operations issued in the measured part
     * @param completed of those, finished successfully
     * @param errors of those, failed
     * @param latency latency from intended start of the successful ones, in nanoseconds
     * @param seconds length of the measured part
     * @param issuerLateMillis how far the issuing thread itself fell behind its schedule at worst
     */
    public record Result(
            AtomicLong issued,
            AtomicLong completed,
            AtomicLong errors,
            Histogram latency,
            double seconds,
            long issuerLateMillis) {}
}
