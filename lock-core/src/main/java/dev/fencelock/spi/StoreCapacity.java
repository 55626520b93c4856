package dev.fencelock.spi;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How close the lock store is to running out of room, as a backend last read it. A store that keeps
 * its history (etcd keeps every revision until it is compacted) grows with every lock taken; past its
 * quota it refuses writes, and no lock can be taken until an operator frees space.
 *
 * @param sizeBytes size of the largest member's database: what the quota limits (etcd's {@code dbSize})
 * @param sizeInUseBytes the part of that member's database in use (etcd's {@code dbSizeInUse}); the
 *     rest is free pages that only defragmentation gives back
 * @param quotaBytes the size past which the store refuses writes (etcd's {@code --quota-backend-bytes},
 *     as configured in the client: etcd does not report it)
 * @param revision the store's current revision
 * @param compactedRevision the revision the history was last compacted to; 0 if it never was
 * @param sinceCompaction how long ago this client saw the compacted revision move; when it has not
 *     seen it move ({@code compactionSeen} false), how long it has been checking: a lower bound
 * @param compactionSeen whether this client saw a compaction happen
 * @param alarms the alarms the store has raised (etcd's {@code NOSPACE}, {@code CORRUPT}), one per
 *     member that raised it; while one is raised the store refuses writes
 */
public record StoreCapacity(
        long sizeBytes,
        long sizeInUseBytes,
        long quotaBytes,
        long revision,
        long compactedRevision,
        Duration sinceCompaction,
        boolean compactionSeen,
        List<Alarm> alarms) {

    public StoreCapacity {
        alarms = List.copyOf(alarms);
    }

    /**
     * An alarm a member raised.
     *
     * @param type the alarm as the store names it, e.g. {@code NOSPACE}
     * @param member the member that raised it, as the store identifies it (etcd: its id in hex)
     */
    public record Alarm(String type, String member) {}

    /** The database's size as a fraction of the quota: at 1 the store refuses writes. */
    public double sizeRatio() {
        return (this.quotaBytes > 0) ? (double) this.sizeBytes / this.quotaBytes : 0;
    }

    /** The revisions of history kept since the last compaction: what compaction would free. */
    public long revisionsSinceCompaction() {
        return Math.max(0, this.revision - this.compactedRevision);
    }

    /** How many members raised an alarm of {@code type}. */
    public long alarmCount(String type) {
        return this.alarms.stream().filter(alarm -> alarm.type().equals(type)).count();
    }

    /** The figures as plain values, for health details that every JSON mapper renders alike. */
    public Map<String, Object> details() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("dbSizeBytes", this.sizeBytes);
        details.put("dbSizeInUseBytes", this.sizeInUseBytes);
        details.put("quotaBytes", this.quotaBytes);
        details.put("dbSizeRatio", Math.round(sizeRatio() * 1000) / 1000.0);
        details.put("revision", this.revision);
        details.put("compactedRevision", this.compactedRevision);
        details.put("revisionsSinceCompaction", revisionsSinceCompaction());
        details.put("secondsSinceCompaction", this.sinceCompaction.toSeconds());
        details.put("compactionSeen", this.compactionSeen);
        details.put(
                "alarms",
                this.alarms.stream()
                        .map(alarm -> alarm.type() + " on member " + alarm.member())
                        .toList());
        return details;
    }
}
