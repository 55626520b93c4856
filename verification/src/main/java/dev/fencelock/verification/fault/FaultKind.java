package dev.fencelock.verification.fault;

import java.util.function.Supplier;

/** The faults of the campaign, by the names reports use. */
public enum FaultKind {
    LEADER_KILL("leader-kill", true, LeaderKill::new),
    MAJORITY_PAUSE("majority-pause", true, MajorityPause::new),
    MINORITY_PARTITION("minority-partition", true, MinorityPartition::new),
    COMPACT_DEFRAG("compact-defrag", true, CompactDefrag::new),
    CLIENT_CUT("client-cut", false, ClientCut::new),
    ZOMBIE("zombie", false, Zombie::new),
    LOST_RESPONSES("lost-responses", false, LostResponses::new),
    FORCE_RELEASE("force-release", false, ForceRelease::new);

    private final String label;
    private final boolean cluster;
    private final Supplier<Fault> factory;

    FaultKind(String label, boolean cluster, Supplier<Fault> factory) {
        this.label = label;
        this.cluster = cluster;
        this.factory = factory;
    }

    /** The name in reports and file names. */
    public String label() {
        return label;
    }

    /** Whether it acts on etcd's members (rather than on one worker). */
    public boolean actsOnCluster() {
        return cluster;
    }

    /** Whether the workers' calls must pass a gRPC proxy for it. */
    public boolean needsGrpcHop() {
        return this == LOST_RESPONSES;
    }

    /** A fresh instance; some faults vary their placement from one injection to the next. */
    public Fault create() {
        return factory.get();
    }
}
