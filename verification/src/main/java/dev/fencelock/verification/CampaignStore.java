package dev.fencelock.verification;

import dev.fencelock.spi.LockBackend;
import dev.fencelock.verification.fault.EtcdTools;
import dev.fencelock.verification.fault.StoreCluster;
import dev.fencelock.verification.worker.Store;
import java.time.Duration;
import java.util.List;

/**
 * The store of one run, started fresh for it and stopped when it ends: its members, each worker's routes to them,
 * and the operator's lock backend. One implementation per {@link Store}.
 */
interface CampaignStore extends AutoCloseable {

    /** Starts a fresh three-member store of {@code store}'s kind and waits until it serves. */
    static CampaignStore start(Store store) {
        return switch (store) {
            case ETCD -> EtcdStore.start();
            case ZOOKEEPER -> ZooKeeperStore.start();
        };
    }

    Store store();

    StoreCluster cluster();

    /** Opens one worker's route to {@code member}; {@code grpcHop} asks for etcd's gRPC proxy behind it. */
    ClientRoute openRoute(StoreCluster.Member member, boolean grpcHop);

    /** What a worker's configuration names to reach the store through {@code routes}, one entry per route. */
    List<String> endpoints(List<ClientRoute> routes);

    /**
     * A backend for the operator's lock client, through routes of its own, so that a fault can put the operator on
     * one side of a partition, as an operator on the majority side of a real one would be.
     */
    LockBackend operatorBackend(String namespace, List<ClientRoute> routes);

    /**
     * etcd's own tools, for the faults only etcd has.
     *
     * @throws IllegalStateException on another store
     */
    EtcdTools etcd();

    /** Waits until every member serves again after a fault. */
    void awaitHealthy(Duration timeout);

    /** Stops every member by PID. */
    @Override
    void close();
}
