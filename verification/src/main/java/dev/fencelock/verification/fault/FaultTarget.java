package dev.fencelock.verification.fault;

import dev.fencelock.verification.worker.Linger;
import dev.fencelock.verification.worker.Store;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** What faults act on: the store's members, the workers and their routes, an operator's tools, and the fault log. */
public interface FaultTarget {

    /** Which store the run's locks live in. */
    Store store();

    /** The store's members. */
    StoreCluster cluster();

    /**
     * etcd's own tools, for the faults that only etcd has.
     *
     * @throws IllegalStateException if the run is on another store
     */
    EtcdTools etcd();

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

    /** Cuts the operator's route to {@code member}: its lock client goes on through the other members. */
    void cutOperatorFrom(StoreCluster.Member member);

    /** Restores every route of the operator. */
    void reconnectOperator();

    /** The keys of {@code key}'s lock, the holder first and then its waiters, read linearizably by the operator. */
    List<QueuedKey> queue(String key) throws Exception;

    /** Logs a fault window. */
    void window(String name, String detail, long start, long end);

    /** Logs the window of a fault that set out to delete a holder's key, with what it deleted. */
    void deletionWindow(String name, String detail, long start, long end, Deletion deletion);

    /** Keeps a fault in place for {@code duration}. */
    void hold(Duration duration) throws InterruptedException;

    /** One worker process and its routes to the store's members. */
    interface Worker {

        String id();

        /** Orders the next operation that reaches the order's phase to stay there. */
        void linger(Linger order);

        /** Waits until an operation follows the order; empty (and the order withdrawn) if none did in time. */
        Optional<LingerNotice> awaitLingering(Duration timeout) throws InterruptedException;

        /** Ends the stay of the operation that followed the last order now, before the order's time is up. */
        void endLinger();

        /** {@code SIGSTOP}. */
        void pause();

        /** {@code SIGCONT}. */
        void resume();

        /** Cuts every route of this worker to the store: connections are closed as soon as they open. */
        void cutFromStore();

        /** Drops every byte on every route of this worker, both ways, with the sockets left open: only silence. */
        void silenceStore();

        /** Lets this worker's requests through on every route but drops every answer. */
        void dropAnswers();

        /** Cuts the routes of this worker to every member but {@code member}. */
        void confineTo(StoreCluster.Member member);

        /** Cuts the route of this worker to {@code member}. */
        void cutFrom(StoreCluster.Member member);

        /** Restores every route; connections that lost bytes are closed, so the client reconnects cleanly. */
        void reconnectToStore();

        /** Drops the answers of the next {@code count} etcd Txns on each route; 0 ends it (etcd only). */
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
     * One key in a lock's queue, as the store has it.
     *
     * @param token the holder's fencing token, or a waiter's future one: the key's create revision on etcd, the
     *     node's creation zxid on ZooKeeper
     * @param worker the instance id in its holder record: the worker that asked for it ({@code w2}), or {@code
     *     operator}
     */
    record QueuedKey(long token, String worker) {}

    /**
     * What a fault that set out to delete a holder's key deleted.
     *
     * @param lockKey the lock, such as {@code k2}
     * @param caughtToken the token of the holder it caught and set out to delete
     * @param deletedToken the token of the key it deleted; {@code null} if it deleted nothing
     */
    record Deletion(
            String lockKey, long caughtToken, @Nullable Long deletedToken) {}
}
