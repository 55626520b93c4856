package dev.fencelock.verification.fault;

import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.etcd.EtcdMember;
import dev.fencelock.verification.worker.Linger;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** What faults act on: the cluster, the workers and their routes, an operator's tools, and the fault log. */
public interface FaultTarget {

    EtcdCluster cluster();

    /** The workers' lease TTL, which sets how long pauses and cuts must last to outlive a lease. */
    Duration leaseTtl();

    /** The next worker in turn, for faults that hit one worker. */
    Worker nextWorker();

    /** Every worker. */
    List<Worker> workers();

    /**
     * Deletes the oldest key of {@code key}'s lock, whoever holds it, through the operator's lock client, as an
     * operator would.
     *
     * @return the key it deleted; empty if the lock had no key, or its oldest key went before the delete landed
     */
    Optional<QueuedKey> forceRelease(String key) throws Exception;

    /** The keys of {@code key}'s lock, the holder first and then its waiters, read linearizably by the operator. */
    List<QueuedKey> queue(String key) throws Exception;

    /** A jetcd client of the cluster's own endpoints, for maintenance. */
    Client etcd();

    /** Logs a fault window. */
    void window(String name, String detail, long start, long end);

    /**
     * Logs the window of a fault that set out to delete a holder's key of {@code lockKey}: {@code deletedToken} is
     * the create revision of the key it deleted, {@code null} if it deleted nothing.
     */
    void deletionWindow(String name, String detail, long start, long end, String lockKey, @Nullable Long deletedToken);

    /** Keeps a fault in place for {@code duration}. */
    void hold(Duration duration) throws InterruptedException;

    /** One worker process and its routes to etcd. */
    interface Worker {

        String id();

        /** Orders the next operation that reaches the order's phase to stay there. */
        void linger(Linger order);

        /** Waits until an operation follows the order; empty (and the order withdrawn) if none did in time. */
        Optional<LingerNotice> awaitLingering(Duration timeout) throws InterruptedException;

        /** {@code SIGSTOP}. */
        void pause();

        /** {@code SIGCONT}. */
        void resume();

        /** Cuts every route of this worker to etcd. */
        void cutFromEtcd();

        /** Cuts the routes of this worker to every member but {@code member}. */
        void confineTo(EtcdMember member);

        /** Cuts the route of this worker to {@code member}. */
        void cutFrom(EtcdMember member);

        /** Restores every route. */
        void reconnectToEtcd();

        /** Drops the answers of the next {@code count} Txns on each route; 0 ends it. */
        void dropTxnAnswers(int count);
    }

    /**
     * What a worker said when it followed a linger order.
     *
     * @param phase where it stays
     * @param operation the operation that stays
     * @param key that operation's key
     * @param token that operation's fencing token
     */
    record LingerNotice(Linger.Phase phase, String operation, String key, long token) {}

    /**
     * One key in a lock's queue, as etcd has it.
     *
     * @param token its create revision: the holder's fencing token, or a waiter's future one
     * @param worker the instance id in its holder record: the worker that asked for it ({@code w2}), or {@code
     *     operator}
     */
    record QueuedKey(long token, String worker) {}
}
