package dev.fencelock.benchmarks;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Acquire latency per second of the measured window, by intended start, so a report can say
 * which seconds were slow and what ran in them (a compaction, a defragmentation).
 */
final class LatencyTimeline {

    /**
     * One second of the window.
     *
     * @param second seconds since the window started
     * @param acquisitions grants intended to start in it
     * @param p99Millis their p99
     * @param maxMillis their maximum
     */
    record Second(int second, long acquisitions, double p99Millis, double maxMillis) {}

    private final Histogram[] seconds;

    private volatile long windowStart = Long.MAX_VALUE;

    LatencyTimeline(long windowSeconds) {
        this.seconds = new Histogram[(int) Math.max(1, windowSeconds)];
        for (int i = 0; i < this.seconds.length; i++) {
            this.seconds[i] = new ConcurrentHistogram(TimeUnit.MINUTES.toNanos(5), 3);
        }
    }

    void start(long windowStart) {
        this.windowStart = windowStart;
    }

    void record(long intended, long latency) {
        long offset = intended - this.windowStart;
        if (offset < 0) {
            return;
        }
        int second = (int) (offset / 1_000_000_000L);
        if (second < this.seconds.length) {
            this.seconds[second].recordValue(Math.max(0, latency));
        }
    }

    /** The {@code count} seconds with the largest maximum latency, slowest first. */
    List<Second> slowest(int count) {
        List<Second> all = new ArrayList<>();
        for (int i = 0; i < this.seconds.length; i++) {
            Histogram histogram = this.seconds[i];
            if (histogram.getTotalCount() > 0) {
                all.add(new Second(
                        i, histogram.getTotalCount(), Reports.millis(histogram, 99), Reports.millis(histogram, 100)));
            }
        }
        all.sort(Comparator.comparingDouble(Second::maxMillis).reversed());
        return List.copyOf(all.subList(0, Math.min(count, all.size())));
    }
}
