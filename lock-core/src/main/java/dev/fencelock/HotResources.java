package dev.fencelock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;

/**
 * The resources this client waits for most, in bounded memory, whatever the number of resources.
 *
 * <p>Each ended acquisition adds the time it waited to its resource's weight, and weights decay
 * with a half-life, so the ranking follows what is hot now. Waiting time is the measure because, by
 * Little's law, a resource's wait time per second is the average number of callers waiting for it:
 * one ranking covers both "many waiters" and "long waits". An uncontended acquisition adds one
 * round trip, so a resource also ranks by being acquired very often, which is contention too.
 *
 * <p>The weights are kept by the <em>space-saving</em> algorithm (Metwally, Agrawal, El Abbadi,
 * 2005) over {@code capacity} counters: a resource without a counter takes the smallest one's,
 * inheriting its weight as an error bound. Every counted weight overestimates the resource's true
 * decayed wait by at most its error, and every error is at most the total weight divided by the
 * capacity; a resource whose true wait is above that share is never dropped. Ranks go by the lower
 * bound (weight minus error), so a resource that just took a counter cannot outrank one measured
 * for longer, and the figures shown are ones the resource certainly reached.
 */
final class HotResources {

    /** How often the weights decay; between two decays they are exact sums. */
    static final long DECAY_STEP_NANOS = 1_000_000_000L;

    /** One counter: decayed wait (ns), its error bound (ns), and decayed acquisitions and busy ends. */
    private static final class Counter {

        double waitNanos;

        double errorNanos;

        double acquisitions;

        double busy;

        int peakWaiting;
    }

    private final int size;

    private final int capacity;

    private final double halfLifeNanos;

    private final LongSupplier clock;

    private final Map<ResourceName, Counter> counters = new HashMap<>();

    private long lastDecay;

    /**
     * @param size how many resources a ranking shows; zero keeps nothing
     * @param halfLife how long until a wait counts half
     * @param clock {@link System#nanoTime()}, or a test's
     */
    HotResources(int size, Duration halfLife, LongSupplier clock) {
        this.size = size;
        // Eight counters per rank keep the error bound at an eighth of the share of the smallest rank.
        this.capacity = (size == 0) ? 0 : Math.max(64, 8 * size);
        this.halfLifeNanos = halfLife.toNanos();
        this.clock = clock;
        this.lastDecay = clock.getAsLong();
    }

    /** How many resources a ranking shows at most. */
    int size() {
        return this.size;
    }

    /** Counters kept at most: the memory bound. */
    int capacity() {
        return this.capacity;
    }

    /** Counters kept now. */
    synchronized int tracked() {
        return this.counters.size();
    }

    /**
     * Counts an ended acquisition of {@code resource}.
     *
     * @param waitedNanos from the call to its end, granted or not
     * @param waiting callers of this client in progress on the resource when it was admitted, itself included
     * @param busy whether it ended because the lock stayed held (a timeout or a conflict)
     */
    synchronized void record(ResourceName resource, long waitedNanos, int waiting, boolean busy) {
        if (this.capacity == 0) {
            return;
        }
        decay();
        Counter counter = this.counters.get(resource);
        if (counter == null) {
            counter = new Counter();
            if (this.counters.size() >= this.capacity) {
                Map.Entry<ResourceName, Counter> smallest = smallest();
                this.counters.remove(smallest.getKey());
                // Space-saving: the newcomer may have been the evicted one's equal all along.
                counter.waitNanos = smallest.getValue().waitNanos;
                counter.errorNanos = smallest.getValue().waitNanos;
            }
            this.counters.put(resource, counter);
        }
        counter.waitNanos += Math.max(0, waitedNanos);
        counter.acquisitions += 1;
        counter.busy += busy ? 1 : 0;
        counter.peakWaiting = Math.max(counter.peakWaiting, waiting);
    }

    /**
     * The ranking now, hottest first, at most {@code size} long.
     *
     * @param waitingNow how many callers of this client are in progress on a resource right now
     */
    synchronized List<HotResource> ranking(ToIntFunction<ResourceName> waitingNow) {
        if (this.capacity == 0) {
            return List.of();
        }
        decay();
        List<Map.Entry<ResourceName, Counter>> entries = new ArrayList<>(this.counters.entrySet());
        entries.sort(
                Comparator.comparingDouble((Map.Entry<ResourceName, Counter> entry) -> lowerBound(entry.getValue()))
                        .reversed());
        // A constant rate r of waiting (s per s) decays to a weight of r / λ: the average waiters are weight × λ.
        double lambdaPerSecond = Math.log(2) / (this.halfLifeNanos / 1e9);
        List<HotResource> ranking = new ArrayList<>();
        for (Map.Entry<ResourceName, Counter> entry : entries) {
            Counter counter = entry.getValue();
            double waitSeconds = lowerBound(counter) / 1e9;
            if (ranking.size() == this.size || waitSeconds <= 0) {
                break;
            }
            ranking.add(new HotResource(
                    ranking.size() + 1,
                    entry.getKey().value(),
                    waitSeconds,
                    counter.errorNanos / 1e9,
                    waitSeconds * lambdaPerSecond,
                    waitingNow.applyAsInt(entry.getKey()),
                    counter.peakWaiting,
                    counter.acquisitions,
                    counter.busy));
        }
        return List.copyOf(ranking);
    }

    private static double lowerBound(Counter counter) {
        return counter.waitNanos - counter.errorNanos;
    }

    private Map.Entry<ResourceName, Counter> smallest() {
        Map.Entry<ResourceName, Counter> smallest = null;
        for (Map.Entry<ResourceName, Counter> entry : this.counters.entrySet()) {
            if (smallest == null || entry.getValue().waitNanos < smallest.getValue().waitNanos) {
                smallest = entry;
            }
        }
        return smallest;
    }

    /** Multiplies every counter by 2^(-elapsed / half-life), at most once per step: order and bounds are kept. */
    private void decay() {
        long now = this.clock.getAsLong();
        long elapsed = now - this.lastDecay;
        if (elapsed < DECAY_STEP_NANOS) {
            return;
        }
        this.lastDecay = now;
        double factor = Math.pow(0.5, elapsed / this.halfLifeNanos);
        for (Counter counter : this.counters.values()) {
            counter.waitNanos *= factor;
            counter.errorNanos *= factor;
            counter.acquisitions *= factor;
            counter.busy *= factor;
        }
    }
}
