package dev.fencelock.actuate;

import dev.fencelock.InvalidLockKeyException;
import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockException;
import dev.fencelock.ResourceName;
import dev.fencelock.audit.LockAuditLog;
import dev.fencelock.spi.LockAdministration;
import dev.fencelock.spi.QueueEntry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
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
 * so a fencing-aware store refuses the old holder's late writes. Every force-release is written to
 * the audit log. Expose the endpoint only behind authorization (for example Spring Security
 * requiring an admin role for {@code /actuator/fencelock/**}).
 */
@Endpoint(id = "fencelock")
public class FenceLockEndpoint {

    private static final Logger logger = LoggerFactory.getLogger(FenceLockEndpoint.class);

    private final LockClient client;

    private final @Nullable LockAuditLog audit;

    private final Duration storeTimeout;

    /**
     * Creates the endpoint.
     *
     * @param client the lock client whose locks and store are shown
     * @param audit where force-releases are recorded; without it they are logged as warnings
     * @param storeTimeout longest wait for the store to answer one operation
     */
    public FenceLockEndpoint(LockClient client, @Nullable LockAuditLog audit, Duration storeTimeout) {
        this.client = client;
        this.audit = audit;
        this.storeTimeout = storeTimeout;
    }

    /** The locks this instance holds, one entry per acquisition. */
    @ReadOperation
    public HeldLocksDescriptor heldLocks() {
        List<HeldLockDescriptor> locks =
                this.client.heldLocks().stream().map(HeldLockDescriptor::new).toList();
        return new HeldLocksDescriptor(this.client.backend().describe(), locks);
    }

    /** The holder and the waiters of {@code resource}, read from the store (not only this instance). */
    @ReadOperation
    public QueueDescriptor queue(@Selector String resource) {
        List<QueueEntryDescriptor> entries = await(administration().queue(resourceName(resource)), resource).stream()
                .map(QueueEntryDescriptor::new)
                .toList();
        return entries.isEmpty()
                ? new QueueDescriptor(resource, null, List.of())
                : new QueueDescriptor(resource, entries.get(0), entries.subList(1, entries.size()));
    }

    /**
     * Deletes the current holder of {@code resource}, whichever instance it is, so the first waiter
     * gets the lock with a larger fencing token. The old holder learns of it within one watch event while it can reach the store.
     */
    @DeleteOperation
    public ForceReleaseDescriptor forceRelease(@Selector String resource) {
        ResourceName name = resourceName(resource);
        Optional<QueueEntry> removed = await(administration().forceRelease(name), resource);
        removed.ifPresent(entry -> recordForceRelease(name.value(), entry));
        return new ForceReleaseDescriptor(
                resource,
                removed.isPresent(),
                removed.map(QueueEntryDescriptor::new).orElse(null));
    }

    private void recordForceRelease(String resource, QueueEntry entry) {
        if (this.audit != null) {
            this.audit.forceReleased(resource, entry.leaseId(), entry.fencingToken(), entry.holder());
        } else {
            logger.warn(
                    "Lock '{}' (lease {}, token {}) was force-released through the fencelock endpoint",
                    resource,
                    entry.leaseId(),
                    entry.fencingToken());
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
     */
    public record HeldLocksDescriptor(String backend, List<HeldLockDescriptor> locks)
            implements OperationResponseBody {}

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
     */
    public record HeldLockDescriptor(
            String resource,
            String requestId,
            long leaseId,
            long fencingToken,
            Instant acquiredAt,
            Instant expiresAt,
            int holds,
            String lockName) {

        HeldLockDescriptor(LockClient.HeldLock lock) {
            this(
                    lock.resource(),
                    lock.requestId(),
                    lock.leaseId(),
                    lock.fencingToken(),
                    lock.acquiredAt(),
                    lock.expiresAt(),
                    lock.holds(),
                    lock.lockName());
        }
    }

    /**
     * The queue of one resource in the store.
     *
     * @param resource the resource
     * @param holder the current holder, if any
     * @param waiters the waiters, in the order they will get the lock
     */
    public record QueueDescriptor(
            String resource, @Nullable QueueEntryDescriptor holder, List<QueueEntryDescriptor> waiters)
            implements OperationResponseBody {}

    /**
     * One key in a resource's queue.
     *
     * @param requestId the acquisition's request id
     * @param leaseId the store lease the key lives on
     * @param fencingToken the holder's token, or the token a waiter will get
     * @param record the holder record its client wrote (instance, acquired-at, TTL)
     */
    public record QueueEntryDescriptor(String requestId, long leaseId, long fencingToken, String record) {

        QueueEntryDescriptor(QueueEntry entry) {
            this(entry.requestId(), entry.leaseId(), entry.fencingToken(), entry.holder());
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
