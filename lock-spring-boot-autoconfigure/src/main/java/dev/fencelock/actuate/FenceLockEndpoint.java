package dev.fencelock.actuate;

import dev.fencelock.HotResource;
import dev.fencelock.InvalidLockKeyException;
import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockException;
import dev.fencelock.LockMode;
import dev.fencelock.ResourceName;
import dev.fencelock.audit.LockAuditLog;
import dev.fencelock.audit.LockAuditLog.ForceReleaseOutcome;
import dev.fencelock.spi.LockAdministration;
import dev.fencelock.spi.QueueEntry;
import dev.fencelock.spi.QueueWalk;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code fencelock} actuator endpoint: the locks this instance holds, the holder and waiters
 * of one resource as the store has them, and force-releasing a stuck holder.
 *
 * <p>Force-release is an administrative operation: it takes a lock away from a holder that may
 * still be working. It is safe for data only because the next holder gets a larger fencing token,
 * so a fencing-aware store refuses the old holder's late writes. So the endpoint is read-only
 * unless {@code management.endpoint.fencelock.access=unrestricted} is set for it by name: Boot's
 * {@code management.endpoints.access.default} alone does not turn force-release on. Every request
 * is written to the audit log with the caller's principal. Expose the endpoint only behind
 * authorization (for example Spring Security requiring an admin role for {@code
 * /actuator/fencelock/**}).
 */
@Endpoint(id = "fencelock", defaultAccess = Access.READ_ONLY)
public class FenceLockEndpoint {

    private static final Logger logger = LoggerFactory.getLogger(FenceLockEndpoint.class);

    private final LockClient client;

    private final @Nullable LockAuditLog audit;

    private final Duration storeTimeout;

    private final boolean forceReleasePermitted;

    /**
     * Creates the endpoint.
     *
     * @param client the lock client whose locks and store are shown
     * @param audit where force-releases are recorded; without it they are logged as warnings
     * @param storeTimeout longest wait for the store to answer one operation
     * @param forceReleasePermitted whether force-release was explicitly permitted ({@code
     *     management.endpoint.fencelock.access=unrestricted}); otherwise it is refused even where
     *     the operation is mapped
     */
    public FenceLockEndpoint(
            LockClient client, @Nullable LockAuditLog audit, Duration storeTimeout, boolean forceReleasePermitted) {
        this.client = client;
        this.audit = audit;
        this.storeTimeout = storeTimeout;
        this.forceReleasePermitted = forceReleasePermitted;
    }

    /**
     * The locks this instance holds, one entry per acquisition, and the resources its callers waited
     * for most lately: the names behind the {@code fencelock.hot.*} gauges' ranks.
     */
    @ReadOperation
    public HeldLocksDescriptor heldLocks() {
        List<HeldLockDescriptor> locks =
                this.client.heldLocks().stream().map(HeldLockDescriptor::new).toList();
        List<HotResourceDescriptor> hot = this.client.hotResources().stream()
                .map(HotResourceDescriptor::new)
                .toList();
        return new HeldLocksDescriptor(this.client.backend().describe(), locks, hot);
    }

    /**
     * The holders and the waiters of {@code resource}, read from the store (not only this instance),
     * each with its mode and permits. An exclusive lock has one holder; readers of a shared lock and
     * a semaphore's permits may have several.
     */
    @ReadOperation
    public QueueDescriptor queue(@Selector String resource) {
        List<QueueEntry> entries = await(administration().queue(resourceName(resource)), resource);
        List<QueueEntryDescriptor> holders = new ArrayList<>();
        List<QueueEntryDescriptor> waiters = new ArrayList<>();
        QueueWalk walk = new QueueWalk();
        for (QueueEntry entry : entries) {
            boolean holds = walk.next(entry.kind()) == QueueWalk.Standing.HOLDS;
            (holds ? holders : waiters).add(new QueueEntryDescriptor(entry));
        }
        return new QueueDescriptor(resource, holders.isEmpty() ? null : holders.get(0), holders, waiters);
    }

    /**
     * Deletes the current holder of {@code resource} (the oldest, where several hold), whichever
     * instance it is, so the first waiter gets the lock with a larger fencing token. The old holder learns of it within one watch event while it
     * can reach the store. Refused unless {@code management.endpoint.fencelock.access=unrestricted};
     * every request, refused or not, is audited with the caller's principal.
     */
    @DeleteOperation
    public ForceReleaseDescriptor forceRelease(@Selector String resource, SecurityContext securityContext) {
        String principal = OperatorPrincipal.nameOf(securityContext);
        if (!this.forceReleasePermitted) {
            record(ForceReleaseOutcome.REFUSED, resource, null, principal, false, null);
            throw new InvalidEndpointRequestException(
                    "Force-release of '" + resource + "' refused: it is off unless"
                            + " management.endpoint.fencelock.access=unrestricted is set for this endpoint",
                    "Force-release is off");
        }
        ResourceName name = resourceName(resource);
        CompletableFuture<Optional<QueueEntry>> delete = administration().forceRelease(name);
        Optional<QueueEntry> removed;
        try {
            removed = delete.get(this.storeTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException ex) {
            // Not cancelled: the delete may already be on its way to the store, so its result is still audited.
            record(
                    ForceReleaseOutcome.TIMED_OUT,
                    name.value(),
                    null,
                    principal,
                    false,
                    "outcome unknown: the delete may still commit; a late=true line reports it");
            delete.whenComplete((late, failure) -> recordResult(name.value(), principal, true, late, failure));
            throw new LockBackendUnavailableException(
                    "Lock store " + this.client.backend().describe()
                            + " did not confirm the force-release of '" + resource + "' within "
                            + this.storeTimeout.toMillis() + " ms; it may still take effect (see the audit log, or GET"
                            + " the resource's queue)");
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            delete.whenComplete((late, failure) -> recordResult(name.value(), principal, true, late, failure));
            throw new LockException("Interrupted while force-releasing '" + resource + "'", ex);
        } catch (ExecutionException ex) {
            recordResult(name.value(), principal, false, null, ex.getCause());
            throw (ex.getCause() instanceof RuntimeException runtime)
                    ? runtime
                    : new LockException("Lock store failed to force-release '" + resource + "'", ex.getCause());
        }
        recordResult(name.value(), principal, false, removed, null);
        return new ForceReleaseDescriptor(
                resource,
                removed.isPresent(),
                removed.map(QueueEntryDescriptor::new).orElse(null));
    }

    private void recordResult(
            String resource,
            String principal,
            boolean late,
            @Nullable Optional<QueueEntry> removed,
            @Nullable Throwable failure) {
        if (failure != null || removed == null) {
            String error = (failure != null) ? failure.getClass().getSimpleName() + ": " + failure.getMessage() : null;
            record(ForceReleaseOutcome.UNKNOWN, resource, null, principal, late, error);
        } else if (removed.isPresent()) {
            record(ForceReleaseOutcome.RELEASED, resource, removed.get(), principal, late, null);
        } else {
            record(ForceReleaseOutcome.NONE, resource, null, principal, late, null);
        }
    }

    private void record(
            ForceReleaseOutcome outcome,
            String resource,
            @Nullable QueueEntry removed,
            String principal,
            boolean late,
            @Nullable String detail) {
        if (this.audit != null) {
            this.audit.forceRelease(outcome, resource, removed, principal, late, detail);
        } else {
            logger.warn(
                    "Force-release of lock '{}' through the fencelock endpoint by '{}': {}{} (lease {}, token {}){}",
                    resource,
                    principal,
                    outcome.value(),
                    late ? " (late)" : "",
                    (removed != null) ? removed.leaseId() : 0,
                    (removed != null) ? removed.fencingToken() : 0,
                    (detail != null) ? "; " + detail : "");
        }
    }

    private LockAdministration administration() {
        return this.client
                .administration()
                .orElseThrow(() -> new IllegalStateException("Lock store "
                        + this.client.backend().describe() + " offers no queue inspection or force-release"));
    }

    private ResourceName resourceName(String resource) {
        try {
            return ResourceName.of(resource, this.client.settings().maxResourceLength());
        } catch (InvalidLockKeyException ex) {
            throw new InvalidEndpointRequestException(ex.getMessage(), "Invalid resource name", ex);
        }
    }

    private <T> T await(CompletableFuture<T> future, String resource) {
        try {
            return future.get(this.storeTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException ex) {
            future.cancel(false);
            throw new LockBackendUnavailableException(
                    "Lock store " + this.client.backend().describe() + " did not answer for '" + resource + "' within "
                            + this.storeTimeout.toMillis() + " ms");
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockException("Interrupted while asking the lock store about '" + resource + "'", ex);
        } catch (ExecutionException ex) {
            if (ex.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new LockException("Lock store failed for '" + resource + "'", ex.getCause());
        }
    }

    /**
     * The locks of this instance.
     *
     * @param backend where the locks live
     * @param locks the locks held
     * @param hotResources the resources this instance's callers waited for most lately, hottest first
     */
    public record HeldLocksDescriptor(
            String backend, List<HeldLockDescriptor> locks, List<HotResourceDescriptor> hotResources)
            implements OperationResponseBody {}

    /**
     * One of the resources this instance's callers waited for most lately ({@link HotResource}):
     * figures decay with a half-life and are lower bounds, short by at most {@code errorSeconds}.
     *
     * @param rank the rank, as the {@code fencelock.hot.*} gauges' {@code rank} tag
     * @param resource the resolved resource
     * @param waitSeconds time this instance's callers spent waiting for it, decayed
     * @param errorSeconds how much more it may have been
     * @param averageWaiting callers waiting for it on average lately (wait seconds per second)
     * @param waitingNow acquisitions of it in progress now
     * @param peakWaiting the most in progress at once since it was first counted
     * @param acquisitions ended acquisitions, decayed
     * @param busy of those, the ones that ended because it stayed held, decayed
     */
    public record HotResourceDescriptor(
            int rank,
            String resource,
            double waitSeconds,
            double errorSeconds,
            double averageWaiting,
            int waitingNow,
            int peakWaiting,
            double acquisitions,
            double busy) {

        HotResourceDescriptor(HotResource hot) {
            this(
                    hot.rank(),
                    hot.resource(),
                    hot.waitSeconds(),
                    hot.errorSeconds(),
                    hot.averageWaiting(),
                    hot.waitingNow(),
                    hot.peakWaiting(),
                    hot.acquisitions(),
                    hot.busy());
        }
    }

    /**
     * One lock this instance holds.
     *
     * @param resource the resolved resource
     * @param requestId the acquisition's request id
     * @param leaseId the store lease the lock lives on
     * @param fencingToken the token to pass to fencing-aware stores
     * @param acquiredAt when it was acquired
     * @param expiresAt until when it is valid without a further renewal
     * @param holds open re-entrant holds
     * @param lockName the bounded lock name: the annotation's name or key template
     * @param mode exclusive or shared
     * @param permits the semaphore's number of permits, 1 for a lock
     */
    public record HeldLockDescriptor(
            String resource,
            String requestId,
            long leaseId,
            long fencingToken,
            Instant acquiredAt,
            Instant expiresAt,
            int holds,
            String lockName,
            LockMode mode,
            int permits) {

        HeldLockDescriptor(LockClient.HeldLock lock) {
            this(
                    lock.resource(),
                    lock.requestId(),
                    lock.leaseId(),
                    lock.fencingToken(),
                    lock.acquiredAt(),
                    lock.expiresAt(),
                    lock.holds(),
                    lock.lockName(),
                    lock.mode(),
                    lock.permits());
        }
    }

    /**
     * The queue of one resource in the store.
     *
     * @param resource the resource
     * @param holder the oldest current holder, if any
     * @param holders every current holder, oldest first: one for an exclusive lock, possibly several
     *     readers of a shared lock or holders of a semaphore's permits
     * @param waiters the waiters, in the order they will get the lock
     */
    public record QueueDescriptor(
            String resource,
            @Nullable QueueEntryDescriptor holder,
            List<QueueEntryDescriptor> holders,
            List<QueueEntryDescriptor> waiters)
            implements OperationResponseBody {}

    /**
     * One key in a resource's queue.
     *
     * @param requestId the acquisition's request id
     * @param leaseId the store lease the key lives on
     * @param fencingToken the holder's token, or the token a waiter will get
     * @param record the holder record its client wrote (instance, acquired-at, TTL)
     * @param mode exclusive or shared, as the key says
     * @param permits the semaphore's number of permits, as the key says; 1 for a lock
     */
    public record QueueEntryDescriptor(
            String requestId, long leaseId, long fencingToken, String record, LockMode mode, int permits) {

        QueueEntryDescriptor(QueueEntry entry) {
            this(
                    entry.requestId(),
                    entry.leaseId(),
                    entry.fencingToken(),
                    entry.holder(),
                    entry.kind().mode(),
                    entry.kind().permits());
        }
    }

    /**
     * The result of a force-release.
     *
     * @param resource the resource
     * @param released whether a holder was removed
     * @param removed the removed holder, if there was one
     */
    public record ForceReleaseDescriptor(
            String resource, boolean released, @Nullable QueueEntryDescriptor removed)
            implements OperationResponseBody {}
}
