package dev.fencelock.verification.fault;

import dev.fencelock.verification.worker.Store;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/** The faults of the campaign, by the names reports use, and the stores on which each has a meaning. */
public enum FaultKind {
    LEADER_KILL("leader-kill", true, EnumSet.allOf(Store.class), store -> new LeaderKill()),
    MAJORITY_PAUSE("majority-pause", true, EnumSet.allOf(Store.class), store -> new MajorityPause()),
    /** The kit's ZooKeeper ensemble has no peer network to split. */
    MINORITY_PARTITION("minority-partition", true, EnumSet.of(Store.ETCD), store -> new MinorityPartition()),
    /** ZooKeeper keeps no history of old versions that an operator would compact. */
    COMPACT_DEFRAG("compact-defrag", true, EnumSet.of(Store.ETCD), store -> new CompactDefrag()),
    CLIENT_CUT("client-cut", false, EnumSet.allOf(Store.class), store -> new ClientCut()),
    ZOMBIE("zombie", false, EnumSet.allOf(Store.class), store -> new Zombie()),
    LOST_RESPONSES(
            "lost-responses",
            false,
            EnumSet.allOf(Store.class),
            store -> store == Store.ETCD ? new LostResponses() : new LostAnswers()),
    FORCE_RELEASE("force-release", false, EnumSet.allOf(Store.class), store -> new ForceRelease()),
    /** An etcd lease has no counterpart of a session that the server ends and the client must replace. */
    SESSION_EXPIRY("session-expiry", false, EnumSet.of(Store.ZOOKEEPER), store -> new SessionExpiry());

    private final String label;
    private final boolean cluster;
    private final Set<Store> stores;
    private final Function<Store, Fault> factory;

    FaultKind(String label, boolean cluster, Set<Store> stores, Function<Store, Fault> factory) {
        this.label = label;
        this.cluster = cluster;
        this.stores = stores;
        this.factory = factory;
    }

    /** The name in reports and file names. */
    public String label() {
        return label;
    }

    /** Whether it acts on the store's members (rather than on one worker). */
    public boolean actsOnCluster() {
        return cluster;
    }

    /** Whether it has a meaning on {@code store}. */
    public boolean runsOn(Store store) {
        return stores.contains(store);
    }

    /** Every fault that has a meaning on {@code store}, in the order of this enum. */
    public static List<FaultKind> on(Store store) {
        return Arrays.stream(values()).filter(kind -> kind.runsOn(store)).toList();
    }

    /** Whether the workers' calls must pass a gRPC proxy for it on {@code store}. */
    public boolean needsGrpcHop(Store store) {
        return this == LOST_RESPONSES && store == Store.ETCD;
    }

    /** A fresh instance for {@code store}; some faults vary their placement from one injection to the next. */
    public Fault create(Store store) {
        if (!runsOn(store)) {
            throw new IllegalArgumentException("the fault " + label + " has no meaning on " + store.label());
        }
        return factory.apply(store);
    }
}
