package dev.fencelock.audit;

import dev.fencelock.AcquireOutcome;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockEventListener;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.QueueEntry;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one {@code key=value} line per lock event to the logger {@value #LOGGER_NAME}: acquire,
 * release, renewal failure, loss, force-release and fencing rejection. Each line names the
 * resource, lease id, token, instance, outcome and duration. It never includes method arguments
 * or payloads. Route the logger to its own appender, or use Boot's structured logging, to keep an
 * audit trail.
 *
 * <p>Routine events (acquire, release) are written at DEBUG, so a busy application's log is not
 * flooded with two lines per locked call; what an operator must see (a loss, a failed renewal, a
 * force-release, a rejected write) is written at INFO. Set the logger to DEBUG for the full trail.
 */
public final class LockAuditLog implements LockEventListener {

    /** The audit logger's name. */
    public static final String LOGGER_NAME = "dev.fencelock.audit";

    private static final Logger audit = LoggerFactory.getLogger(LOGGER_NAME);

    private static final String LINE =
            "event={} outcome={} resource=\"{}\" lock=\"{}\" leaseId={} token={} instance=\"{}\" durationMs={}";

    private final String instanceId;

    public LockAuditLog(String instanceId) {
        this.instanceId = instanceId;
    }

    @Override
    public void acquired(LockLease lease, String lockName, Duration waited, boolean reentered) {
        if (!reentered) {
            debug("acquire", "acquired", lease.resource(), lockName, lease.leaseId(), lease.fencingToken(), waited);
        }
    }

    @Override
    public void acquireFailed(ResourceName resource, String lockName, Throwable cause, Duration waited) {
        acquireFailed(resource, lockName, cause, waited, true);
    }

    /**
     * A failed acquisition, with the outcome the {@code fencelock.acquire} meter uses ({@link
     * AcquireOutcome}: a try that found the lock held is {@code conflict}) and the exception's name.
     */
    @Override
    public void acquireFailed(
            ResourceName resource, String lockName, Throwable cause, Duration waited, boolean queued) {
        if (audit.isDebugEnabled()) {
            audit.debug(
                    LINE + " exception={}",
                    "acquire",
                    AcquireOutcome.of(cause, queued),
                    quoteSafe(resource.value()),
                    quoteSafe(lockName),
                    0,
                    0,
                    quoteSafe(this.instanceId),
                    waited.toMillis(),
                    cause.getClass().getSimpleName());
        }
    }

    @Override
    public void released(LockLease lease, String lockName, Duration held, Duration took) {
        released(lease, lockName, held, took, false);
    }

    @Override
    public void released(LockLease lease, String lockName, Duration held, Duration took, boolean alreadyGone) {
        debug(
                "release",
                alreadyGone ? "already-gone" : "released",
                lease.resource(),
                lockName,
                lease.leaseId(),
                lease.fencingToken(),
                held);
    }

    @Override
    public void renewed(LockLease lease, String lockName, Duration took, @Nullable Throwable failure) {
        if (failure != null) {
            log(
                    "renew",
                    failure.getClass().getSimpleName(),
                    lease.resource(),
                    lockName,
                    lease.leaseId(),
                    lease.fencingToken(),
                    took);
        }
    }

    @Override
    public void lost(LockLease lease, String lockName, LockLostException cause) {
        log("lost", "lost", lease.resource(), lockName, lease.leaseId(), lease.fencingToken(), Duration.ZERO);
    }

    @Override
    public void lostAfterCommit(LockLease lease, String lockName) {
        log("lost", "after-commit", lease.resource(), lockName, lease.leaseId(), lease.fencingToken(), Duration.ZERO);
    }

    /**
     * Records one force-release request served by this instance: who asked ({@code principal}),
     * for which resource, and how it ended. {@code removed} is the holder whose key was deleted
     * (which instance held it, with which lease and token), absent for every outcome but {@link
     * ForceReleaseOutcome#RELEASED}. {@code late} marks the line that reports a delete whose
     * result arrived after the request had already been answered with {@link
     * ForceReleaseOutcome#TIMED_OUT}.
     */
    public void forceRelease(
            ForceReleaseOutcome outcome,
            String resource,
            @Nullable QueueEntry removed,
            String principal,
            boolean late,
            @Nullable String detail) {
        if (audit.isInfoEnabled()) {
            audit.info(
                    "event=force-release outcome={} resource=\"{}\" leaseId={} token={} holder=\"{}\" principal=\"{}\""
                            + " instance=\"{}\"{}{}",
                    outcome.value(),
                    quoteSafe(resource),
                    (removed != null) ? removed.leaseId() : 0,
                    (removed != null) ? removed.fencingToken() : 0,
                    (removed != null) ? quoteSafe(removed.holder()) : "",
                    quoteSafe(principal),
                    quoteSafe(this.instanceId),
                    late ? " late=true" : "",
                    (detail != null) ? " detail=\"" + quoteSafe(detail) + "\"" : "");
        }
    }

    /** How a force-release request ended, as the {@code outcome} of its audit line says. */
    public enum ForceReleaseOutcome {

        /** The holder's key was deleted. */
        RELEASED("released"),

        /** Nobody held the lock: nothing was deleted. */
        NONE("none"),

        /** Force-release is not permitted on this instance: nothing was sent to the store. */
        REFUSED("refused"),

        /**
         * The store did not answer in time; the delete may still commit. A later line with {@code
         * late=true} reports what it did.
         */
        TIMED_OUT("timed-out"),

        /** The store failed the request; whether the key was deleted is not known. */
        UNKNOWN("unknown");

        private final String value;

        ForceReleaseOutcome(String value) {
            this.value = value;
        }

        /** The outcome as written into the audit line. */
        public String value() {
            return this.value;
        }
    }

    /**
     * Records a write refused for a stale fencing token, when nothing is known of the lock behind it
     * (lock {@code "-"}, lease 0) beyond what the exception says.
     */
    public void fencingRejected(FencingTokenRejectedException rejection) {
        fencingRejected(rejection, "-", 0);
    }

    /**
     * Records a write refused for a stale fencing token, with the lock name and lease of the
     * writer's fence and who refused it: {@code refusedBy=client} (this instance, before sending the
     * write, because it knew its lock was lost), or the database's check that did: {@code
     * fence-table}, {@code protected-table} or {@code row}.
     */
    public void fencingRejected(FencingTokenRejectedException rejection, String lockName, long leaseId) {
        if (audit.isInfoEnabled()) {
            audit.info(
                    LINE + " refusedBy={}",
                    "fencing",
                    "rejected",
                    quoteSafe(rejection.getResource()),
                    quoteSafe(lockName),
                    leaseId,
                    rejection.getToken(),
                    quoteSafe(this.instanceId),
                    0,
                    refusedBy(rejection.refusedBy()));
        }
    }

    /** How a refusal's origin is written in the audit line. */
    static String refusedBy(FencingTokenRejectedException.RefusedBy refusedBy) {
        return refusedBy.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    private void log(
            String event, String outcome, String resource, String lockName, long leaseId, long token, Duration took) {
        if (audit.isInfoEnabled()) {
            audit.info(
                    LINE,
                    event,
                    outcome,
                    quoteSafe(resource),
                    quoteSafe(lockName),
                    leaseId,
                    token,
                    quoteSafe(this.instanceId),
                    took.toMillis());
        }
    }

    private void debug(
            String event, String outcome, String resource, String lockName, long leaseId, long token, Duration took) {
        if (audit.isDebugEnabled()) {
            audit.debug(
                    LINE,
                    event,
                    outcome,
                    quoteSafe(resource),
                    quoteSafe(lockName),
                    leaseId,
                    token,
                    quoteSafe(this.instanceId),
                    took.toMillis());
        }
    }

    private static String quoteSafe(String value) {
        // One event, one line: lock names and holder records are not checked for control characters.
        return value.replace("\\", "\\\\")
                .replace("\"", "\\\"")
                .replace("\n", "\\n")
                .replace("\r", "\\r");
    }
}
