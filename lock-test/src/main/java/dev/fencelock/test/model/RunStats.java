package dev.fencelock.test.model;

import dev.fencelock.test.model.Step.Kind;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** What a check did, summed over its scripts: the figures a long run reports. */
public final class RunStats {

    private final long startedNanos = System.nanoTime();

    private final Map<Kind, Integer> executed = new EnumMap<>(Kind.class);

    private int scripts;

    private int skipped;

    private int sessionsLostToFaults;

    private int sessionsLostToStalls;

    private long monitorSamples;

    synchronized void script() {
        this.scripts++;
    }

    synchronized void executed(Kind kind) {
        this.executed.merge(kind, 1, Integer::sum);
    }

    synchronized void skipped() {
        this.skipped++;
    }

    synchronized void sessionLostToFault() {
        this.sessionsLostToFaults++;
    }

    synchronized void sessionLostToStall() {
        this.sessionsLostToStalls++;
    }

    synchronized void monitorSamples(long samples) {
        this.monitorSamples += samples;
    }

    synchronized int scripts() {
        return this.scripts;
    }

    public synchronized int steps() {
        return this.executed.values().stream().mapToInt(Integer::intValue).sum();
    }

    @Override
    public synchronized String toString() {
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - this.startedNanos);
        return this.scripts + " scripts, " + steps() + " steps executed (" + this.skipped
                + " skipped: nothing to act on), " + this.sessionsLostToFaults + " session leases lost to faults, "
                + this.sessionsLostToStalls + " to stalls, "
                + this.monitorSamples + " double-holder samples, " + seconds + " s; steps by kind: " + this.executed;
    }
}
