package dev.fencelock;

/**
 * One of the resources this client waits for most, as {@link LockClient#hotResources()} ranks
 * them. Every figure but {@code waitingNow} decays with the client's half-life (one minute unless
 * configured), so they describe the last few minutes, not the whole run; they come from a bounded
 * sketch and are lower bounds, short of the truth by at most {@code errorSeconds} (see the
 * reference documentation on hot resources).
 *
 * @param rank 1 for the hottest
 * @param resource the resolved resource name (not safe as a metric tag: use the rank)
 * @param waitSeconds time this client's callers spent waiting for it, decayed
 * @param errorSeconds how much more it may have been, at most
 * @param averageWaiting how many of this client's callers waited for it on average recently (its
 *     wait time per second: Little's law)
 * @param waitingNow this client's acquisitions of it in progress right now
 * @param peakWaiting the most of them in progress at once since the client began counting it
 * @param acquisitions its ended acquisitions, granted or not, decayed
 * @param busy those that ended because it stayed held (a timeout, or a try that found it held), decayed
 */
public record HotResource(
        int rank,
        String resource,
        double waitSeconds,
        double errorSeconds,
        double averageWaiting,
        int waitingNow,
        int peakWaiting,
        double acquisitions,
        double busy) {}
