package dev.fencelock.verification.fault;

import dev.fencelock.test.etcd.EtcdMember;
import java.time.Duration;

/**
 * Cuts one member off from the other two for 5 s, through the cluster's peer network; clients still reach it.
 * Every other injection isolates the leader (which must step down), the rest a follower.
 */
final class MinorityPartition implements Fault {

    private static final Duration PARTITIONED = Duration.ofSeconds(5);

    private int injections;

    @Override
    public String name() {
        return FaultKind.MINORITY_PARTITION.label();
    }

    @Override
    public void inject(FaultTarget target) throws Exception {
        EtcdMember leader = target.cluster().awaitLeader(Duration.ofSeconds(15));
        boolean isolateLeader = injections++ % 2 == 0;
        EtcdMember isolated =
                isolateLeader ? leader : target.cluster().followers().get(0);
        long start = System.nanoTime();
        try {
            target.cluster().peerNetwork().isolate(isolated);
            target.hold(PARTITIONED);
        } finally {
            target.cluster().peerNetwork().heal();
        }
        target.window(
                name(),
                "isolated " + isolated.name() + (isolateLeader ? " (leader)" : " (follower)") + " for "
                        + PARTITIONED.toMillis() + " ms",
                start,
                System.nanoTime());
    }
}
