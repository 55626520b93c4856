package dev.fencelock.etcd;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The refusals and failures that made one acquisition put again later: how many there were, the
 * last one and whether it wrote nothing, and how long to back off before the next try.
 */
final class PutRefusals {

    private volatile int count;

    private volatile @Nullable Throwable last;

    private volatile boolean lastWroteNothing;

    /** Records {@code refusal} and returns the back-off before the next try: jittered, doubling from 20 ms up to 1 s. */
    long record(Throwable refusal, boolean nothingWritten) {
        int refusals = ++this.count;
        long backOff = TimeUnit.MILLISECONDS.toNanos(20) << Math.min(refusals - 1, 6);
        long delay = Math.min(TimeUnit.SECONDS.toNanos(1), backOff);
        this.last = refusal;
        this.lastWroteNothing = nothingWritten;
        return delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1);
    }

    /** How many refusals were recorded. */
    int count() {
        return this.count;
    }

    /** The last refusal recorded, if any. */
    @Nullable
    Throwable last() {
        return this.last;
    }

    /** Whether the last refusal recorded proved that its put wrote nothing. */
    boolean lastWroteNothing() {
        return this.lastWroteNothing;
    }
}
