package dev.fencelock.etcd;

import dev.fencelock.spi.StoreCapacity;
import io.etcd.jetcd.maintenance.StatusResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads how full etcd is and tells the backend's listener ({@code capacityChecked}): the largest
 * member's database size against the quota, the alarms the cluster raised, and the history kept
 * since the last compaction ({@link CompactionTracker}). etcd does not report its quota
 * ({@code --quota-backend-bytes}, 2 GiB unless set), so the client is told it.
 *
 * <p>Runs every {@code interval} on the backend's timer threads and with each health check. A check
 * costs a Maintenance status request per endpoint (answered by the member itself, no raft round)
 * and, while nothing was compacted since the last check, one count-only read.
 */
final class StoreCapacityProbe {

    private static final Logger logger = LoggerFactory.getLogger(StoreCapacityProbe.class);

    /** How etcd's status lists a raised alarm: {@code memberID:13668033151171901709 alarm:NOSPACE}. */
    private static final Pattern ALARM = Pattern.compile("memberID:(\\d+)\\s+alarm:(\\w+)");

    private final EtcdCalls calls;

    private final long quotaBytes;

    private final CompactionTracker compaction;

    private StoreCapacityProbe(EtcdCalls calls, LockKeys keys, long quotaBytes) {
        this.calls = calls;
        this.quotaBytes = quotaBytes;
        this.compaction = new CompactionTracker(calls, keys.namespace() + "/health", System::nanoTime);
    }

    /**
     * A probe that checks every interval from one interval on (zero: only with health checks). Not at
     * once: building a backend does not contact etcd.
     */
    static StoreCapacityProbe started(EtcdCalls calls, LockKeys keys, long quotaBytes, Duration interval) {
        StoreCapacityProbe probe = new StoreCapacityProbe(calls, keys, quotaBytes);
        if (!interval.isZero()) {
            long nanos = interval.toNanos();
            calls.scheduler().scheduleWithFixedDelay(probe::checkQuietly, nanos, nanos, TimeUnit.NANOSECONDS);
        }
        return probe;
    }

    private void checkQuietly() {
        if (this.calls.isClosed()) {
            return;
        }
        check(this.calls.requestTimeout()).whenComplete((capacity, failure) -> {
            if (failure != null) {
                logger.debug("Reading etcd's database size and compaction failed: {}", failure.toString());
            }
        });
    }

    /** Asks every endpoint for its status, and finds the compaction; fails when no endpoint answers. */
    CompletableFuture<StoreCapacity> check(Duration timeout) {
        CompletableFuture<CompactionTracker.Compaction> compacted = compaction(timeout);
        List<CompletableFuture<StatusResponse>> asked = new ArrayList<>();
        for (String endpoint : this.calls.endpoints()) {
            asked.add(this.calls.timed(
                    () -> this.calls.client().getMaintenanceClient().statusMember(endpoint),
                    "reading the status of " + endpoint,
                    timeout));
        }
        return CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new))
                .handle((ignored, failure) -> answered(asked))
                .thenCombine(compacted, this::capacity);
    }

    /**
     * The compaction as a check finds it within {@code timeout}, else as the last check found it (a
     * search after a compaction may take several reads, and a health check must not wait for them);
     * fails only when no check ever succeeded.
     */
    CompletableFuture<CompactionTracker.Compaction> compaction(Duration timeout) {
        return this.compaction
                .check(timeout)
                .handle((found, failure) -> (found != null) ? found : lastOr(failure))
                .completeOnTimeout(null, timeout.toNanos(), TimeUnit.NANOSECONDS)
                .thenApply(found -> (found != null)
                        ? found
                        : lastOr(new IllegalStateException(
                                "etcd's compacted revision was not found within " + timeout.toMillis() + " ms")));
    }

    private CompactionTracker.Compaction lastOr(Throwable failure) {
        CompactionTracker.Compaction last = this.compaction.last();
        if (last == null) {
            throw (failure instanceof CompletionException completion) ? completion : new CompletionException(failure);
        }
        return last;
    }

    /**
     * The capacity from the statuses that endpoints gave (the health check asks them anyway), tells
     * the listener, and returns it.
     *
     * @throws IllegalStateException if {@code statuses} is empty: no member answered
     */
    StoreCapacity capacity(List<StatusResponse> statuses, CompactionTracker.Compaction compacted) {
        if (statuses.isEmpty()) {
            throw new IllegalStateException("no etcd member answered a status request");
        }
        StatusResponse largest = statuses.get(0);
        long revision = compacted.headRevision();
        Set<StoreCapacity.Alarm> alarms = new LinkedHashSet<>();
        for (StatusResponse status : statuses) {
            if (status.getDbSize() > largest.getDbSize()) {
                largest = status;
            }
            revision = Math.max(revision, status.getHeader().getRevision());
            for (String error : status.getErrorList()) {
                Matcher alarm = ALARM.matcher(error);
                if (alarm.find()) {
                    alarms.add(new StoreCapacity.Alarm(
                            alarm.group(2), Long.toHexString(Long.parseUnsignedLong(alarm.group(1)))));
                }
            }
        }
        StoreCapacity capacity = new StoreCapacity(
                largest.getDbSize(),
                largest.getDbSizeInUse(),
                this.quotaBytes,
                revision,
                compacted.compactedRevision(),
                compacted.since(),
                compacted.seenToMove(),
                List.copyOf(alarms));
        this.calls.events().capacityChecked(capacity);
        return capacity;
    }

    private static List<StatusResponse> answered(List<CompletableFuture<StatusResponse>> asked) {
        List<StatusResponse> statuses = new ArrayList<>();
        for (CompletableFuture<StatusResponse> status : asked) {
            if (!status.isCompletedExceptionally()) {
                statuses.add(status.join());
            }
        }
        return statuses;
    }
}
