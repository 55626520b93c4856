package dev.fencelock.verification.fault;

import io.etcd.jetcd.Client;
import java.util.List;

/** What only an etcd cluster offers faults: a peer network that can be split, and a client for maintenance. */
public interface EtcdTools {

    /** A jetcd client of the cluster's own endpoints. */
    Client client();

    /** Each member's client endpoint, for calls addressed to one member (defragmentation). */
    List<String> memberEndpoints();

    /** Cuts {@code member} off from the other members, in both directions; its clients still reach it. */
    void isolate(StoreCluster.Member member);

    /** Ends every partition of the peer network. */
    void heal();
}
