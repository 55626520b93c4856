package dev.fencelock.spi;

import dev.fencelock.ResourceName;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What operators need from a lock store besides locking: its health, a resource's queue, and
 * force-release. An optional capability: a {@link LockBackend} offers it by implementing this
 * interface too, and integrations (health indicators, endpoints, audit) find it through {@link
 * dev.fencelock.LockClient#administration()} instead of knowing the backend's type.
 */
public interface LockAdministration {

    /** This process's identity as the store's holder records show it (for etcd, {@code host:pid}). */
    String instanceId();

    /**
     * Checks that the store answers a linearizable read within {@code timeout}; never throws,
     * never takes much longer than the timeout. The details are plain values (strings, numbers,
     * lists and maps of them), ready to be rendered as JSON.
     */
    CompletableFuture<BackendHealth> health(Duration timeout);

    /** The holder (first) and waiters of {@code resource}, read linearizably from the store. */
    CompletableFuture<List<QueueEntry>> queue(ResourceName resource);

    /**
     * Deletes the oldest holder's key of {@code resource}, whoever holds it, so the next waiter
     * gets the lock with a larger token. A shared lock or a semaphore may have several holders:
     * only the oldest goes. The old holder learns of it when its key's deletion reaches
     * it, and a fencing-aware store refuses its writes once the new holder wrote.
     *
     * @return the entry that was removed, if there was a holder
     */
    CompletableFuture<Optional<QueueEntry>> forceRelease(ResourceName resource);

    /**
     * The store's current revision, read linearizably: every fencing token issued so far is at most
     * this, and every token issued later is larger. A fence table holding a larger token means the
     * store went back in time (etcd restored from a snapshot). Stores that cannot say fail the
     * future with {@link UnsupportedOperationException}.
     */
    default CompletableFuture<Long> currentRevision() {
        return CompletableFuture.failedFuture(
                new UnsupportedOperationException("This lock store does not report its current revision"));
    }

    /** The usual instance id: {@code host:pid}. */
    static String defaultInstanceId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception ex) {
            host = "unknown-host";
        }
        return host + ":" + ManagementFactory.getRuntimeMXBean().getPid();
    }
}
