package dev.fencelock.benchmarks;

import dev.fencelock.test.etcd.EtcdMember;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.maintenance.StatusResponse;
import io.etcd.jetcd.options.CompactOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * etcd maintenance during scenario 5's measured window, as an operator's would run on a live
 * cluster: the history compacted to the current revision every {@code interval} (physically, so
 * each run's time includes the deletion), and each running member defragmented once, one after
 * another, at evenly spaced points of the window. Compactions and defragmentations may overlap.
 */
final class CompactionAndDefrag implements DesignWorkloadScenario.WindowHooks {

    private static final Logger logger = LoggerFactory.getLogger(CompactionAndDefrag.class);

    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);

    /**
     * One compaction or defragmentation.
     *
     * @param what {@code compact to <revision>} or {@code defrag <member> (leader|follower)}
     * @param startMillis when it started, from the start of the measured window
     * @param millis how long etcd took to answer it
     * @param detail the database size before and after (defragmentation)
     * @param failure why it failed, or {@code null}
     */
    record Run(
            String what,
            double startMillis,
            double millis,
            String detail,
            @Nullable String failure) {

        double endMillis() {
            return this.startMillis + this.millis;
        }
    }

    private final List<EtcdMember> members;

    private final Duration interval;

    private final Duration window;

    private final Client etcd;

    private final ScheduledThreadPoolExecutor executor =
            new ScheduledThreadPoolExecutor(2, DesignWorkloadScenario.daemon("bench-maintenance"));

    private final List<Run> compactions = Collections.synchronizedList(new ArrayList<>());

    private final List<Run> defrags = Collections.synchronizedList(new ArrayList<>());

    /** etcd's own measure of compaction: each batch of deletions holds its backend's write lock. */
    static final String PAUSES = "etcd_debugging_mvcc_db_compaction_pause_duration_milliseconds";

    /**
     * What etcd measured of the compactions, over the running members.
     *
     * @param batches batches of deletions, each a pause of the member's writes
     * @param millis their total duration
     */
    record Pauses(double batches, double millis) {}

    private volatile double[] pausesAtStart = {0, 0};

    private volatile Pauses pauses = new Pauses(Double.NaN, Double.NaN);

    private volatile long windowStart;

    private volatile boolean over;

    private long lastCompacted;

    /**
     * @param members the running members, each defragmented once
     * @param interval time between the end of one compaction and the start of the next
     * @param window length of the measured window, over which the defragmentations are spread
     */
    CompactionAndDefrag(List<EtcdMember> members, Duration interval, Duration window) {
        this.members = List.copyOf(members);
        this.interval = interval;
        this.window = window;
        this.etcd = Systems.jetcd(
                this.members.stream().map(EtcdMember::clientEndpoint).toList());
        this.executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public void windowStarted(long windowStart) {
        this.windowStart = windowStart;
        this.pausesAtStart = pausesSoFar();
        this.executor.scheduleWithFixedDelay(this::compact, 0, this.interval.toNanos(), TimeUnit.NANOSECONDS);
        long step = this.window.toNanos() / (this.members.size() + 1);
        for (int i = 0; i < this.members.size(); i++) {
            EtcdMember member = this.members.get(i);
            this.executor.schedule(() -> defragment(member), step * (i + 1), TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void windowEnded() {
        this.over = true;
    }

    /** Waits for a compaction or defragmentation still running, and closes the client. */
    void finish() throws InterruptedException {
        this.executor.shutdown();
        this.executor.awaitTermination(2, TimeUnit.MINUTES);
        this.etcd.close();
        double[] end = pausesSoFar();
        this.pauses = new Pauses(end[0] - this.pausesAtStart[0], end[1] - this.pausesAtStart[1]);
    }

    /** The compaction pauses etcd counted in the window, once {@link #finish()} returned. */
    Pauses pauses() {
        return this.pauses;
    }

    private double[] pausesSoFar() {
        double batches = 0;
        double millis = 0;
        for (EtcdMember member : this.members) {
            try {
                batches += member.metric(PAUSES + "_count", null);
                millis += member.metric(PAUSES + "_sum", null);
            } catch (RuntimeException ex) {
                logger.warn("Scenario 5: could not read the metrics of {}: {}", member.name(), ex.toString());
                return new double[] {Double.NaN, Double.NaN};
            }
        }
        return new double[] {batches, millis};
    }

    List<Run> compactions() {
        synchronized (this.compactions) {
            return List.copyOf(this.compactions);
        }
    }

    List<Run> defrags() {
        synchronized (this.defrags) {
            return List.copyOf(this.defrags);
        }
    }

    private void compact() {
        if (this.over) {
            return;
        }
        long started = System.nanoTime();
        String what = "compact";
        try {
            long revision = this.etcd
                    .getKVClient()
                    .get(Systems.bytes("/"))
                    .get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                    .getHeader()
                    .getRevision();
            if (revision <= this.lastCompacted) {
                return; // nothing written since: etcd refuses a compaction to the same revision
            }
            what = "compact to " + revision;
            started = System.nanoTime();
            this.etcd
                    .getKVClient()
                    .compact(
                            revision,
                            CompactOption.builder().withCompactPhysical(true).build())
                    .get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            this.lastCompacted = revision;
            this.compactions.add(run(what, started, "", null));
        } catch (Exception ex) {
            logger.warn("Scenario 5: {} failed", what, ex);
            this.compactions.add(run(what, started, "", ex.toString()));
        }
    }

    private void defragment(EtcdMember member) {
        String role = member.isLeader() ? "leader" : "follower";
        String what = "defrag " + member.name() + " (" + role + ")";
        long started = System.nanoTime();
        try {
            String before = size(member);
            started = System.nanoTime();
            this.etcd
                    .getMaintenanceClient()
                    .defragmentMember(member.clientEndpoint())
                    .get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            long ended = System.nanoTime();
            this.defrags.add(new Run(
                    what,
                    (started - this.windowStart) / 1e6,
                    (ended - started) / 1e6,
                    "db " + before + " → " + size(member),
                    null));
        } catch (Exception ex) {
            logger.warn("Scenario 5: {} failed", what, ex);
            this.defrags.add(run(what, started, "", ex.toString()));
        }
    }

    /** The member's database size and the part of it in use, in MiB. */
    private String size(EtcdMember member) throws Exception {
        StatusResponse status = this.etcd
                .getMaintenanceClient()
                .statusMember(member.clientEndpoint())
                .get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        return String.format(
                java.util.Locale.ROOT,
                "%.1f MiB (%.1f in use)",
                status.getDbSize() / 1048576.0,
                status.getDbSizeInUse() / 1048576.0);
    }

    private Run run(String what, long started, String detail, @Nullable String failure) {
        return new Run(what, (started - this.windowStart) / 1e6, (System.nanoTime() - started) / 1e6, detail, failure);
    }
}
