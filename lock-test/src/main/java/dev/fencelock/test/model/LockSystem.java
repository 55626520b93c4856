package dev.fencelock.test.model;

import dev.fencelock.LockClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A lock store the model is checked against: the in-memory backend, or a real store (etcd,
 * ZooKeeper) with its fault tools. {@link ModelCheck#check} runs scripts against it.
 */
public interface LockSystem {

    /** How many clients every script uses, each with a backend of its own. */
    int CLIENTS = StepGenerator.CLIENTS;

    /** For messages: {@code in-memory}, {@code etcd (3 members)}, {@code ZooKeeper (3 members)}. */
    String describe();

    /** Store members a script may restart; 0 for a store that takes no faults. */
    int members();

    /** The lease TTL of every acquisition: short, so that an expiry step costs little. */
    Duration leaseTtl();

    /** How long a keep-alive keeps a session valid, counted from when it was sent (the lease TTL less a margin). */
    Duration sessionValidity();

    /** How long the store may take to reach a state the model predicts (a hand-over, a delete, a detected loss). */
    Duration settleTimeout();

    /** Opens {@link #CLIENTS} clients on a namespace of their own. */
    Run start(String runId);

    /** One script's clients and store; closing it closes the clients and heals every fault. */
    interface Run extends AutoCloseable {

        List<LockClient> clients();

        StoreView store();

        /** Stops (or lets go again) the keep-alives of {@code client}, so that its session lease runs out. */
        void keepAlives(int client, boolean flowing);

        /**
         * The next answers to the writes of {@code client} (a Txn on etcd, a create or delete on
         * ZooKeeper) are lost after the store applied them; {@code false} disarms it.
         */
        void loseWriteAnswers(int client, boolean lose);

        /** Freezes the leader for {@code pause}, then waits until the store has a leader and every member serves. */
        void pauseLeader(Duration pause);

        /** Restarts member {@code member} and waits until the cluster is healthy. */
        void restartMember(int member);

        /**
         * The live session leases of {@code client} and until when ({@link System#nanoTime()}) each
         * keeps its locks valid; a session that expired is not listed.
         */
        Map<Long, Long> sessionDeadlines(int client);

        /** Closes the clients; the store can still be read. */
        void closeClients();

        /** Closes the clients, heals every fault and lets go of the store. */
        @Override
        void close();
    }
}
