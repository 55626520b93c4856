package dev.fencelock.actuate;

import dev.fencelock.spi.StoreCapacity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * When {@link FenceLockHealthIndicator} reports {@link FenceLockHealthIndicator#WARNING}: the lock
 * store still answers, but runs out of room. etcd refuses every write once its database reaches the
 * quota (the {@code NOSPACE} alarm), and no lock can be taken until an operator frees space; the
 * warning comes before that.
 *
 * @param dbSizeRatio database size as a fraction of the quota from which to warn, above 0 and at most 1
 * @param revisionsSinceCompaction revisions of history kept since the last compaction from which to
 *     warn; {@code null} checks none
 * @param timeSinceCompaction time since the last compaction this client saw from which to warn;
 *     {@code null} checks none
 */
public record CapacityThresholds(
        double dbSizeRatio,
        @Nullable Long revisionsSinceCompaction,
        @Nullable Duration timeSinceCompaction) {

    /** Warns at 80% of the quota, and not about compaction. */
    public static final CapacityThresholds DEFAULT = new CapacityThresholds(0.8, null, null);

    public CapacityThresholds {
        if (!(dbSizeRatio > 0 && dbSizeRatio <= 1)) {
            throw new IllegalArgumentException("dbSizeRatio must be above 0 and at most 1, got " + dbSizeRatio);
        }
        if (revisionsSinceCompaction != null && revisionsSinceCompaction <= 0) {
            throw new IllegalArgumentException(
                    "revisionsSinceCompaction must be positive, got " + revisionsSinceCompaction);
        }
        if (timeSinceCompaction != null && (timeSinceCompaction.isNegative() || timeSinceCompaction.isZero())) {
            throw new IllegalArgumentException("timeSinceCompaction must be positive, got " + timeSinceCompaction);
        }
    }

    /** Why {@code capacity} deserves a warning, one sentence per threshold passed; empty when none is. */
    List<String> warnings(StoreCapacity capacity) {
        List<String> warnings = new ArrayList<>();
        if (capacity.sizeRatio() >= this.dbSizeRatio) {
            warnings.add(String.format(
                    Locale.ROOT,
                    "the database (%s, %s in use) is %.0f%% of the quota of %s: etcd refuses every write"
                            + " at the quota; compact and defragment before",
                    size(capacity.sizeBytes()),
                    size(capacity.sizeInUseBytes()),
                    capacity.sizeRatio() * 100,
                    size(capacity.quotaBytes())));
        }
        if (this.revisionsSinceCompaction != null
                && capacity.revisionsSinceCompaction() >= this.revisionsSinceCompaction) {
            warnings.add(capacity.revisionsSinceCompaction() + " revisions of history kept since the last"
                    + " compaction (revision " + capacity.compactedRevision() + "): is auto-compaction on?");
        }
        if (this.timeSinceCompaction != null && capacity.sinceCompaction().compareTo(this.timeSinceCompaction) >= 0) {
            long seconds = capacity.sinceCompaction().toSeconds();
            warnings.add((capacity.compactionSeen()
                            ? "the last compaction seen was " + seconds + " s ago"
                            : "no compaction seen in the " + seconds + " s this instance has been checking")
                    + ": is auto-compaction on?");
        }
        return warnings;
    }

    private static String size(long bytes) {
        return (bytes >= 1024L * 1024 * 1024)
                ? String.format(Locale.ROOT, "%.2f GiB", bytes / (1024.0 * 1024 * 1024))
                : String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024));
    }
}
