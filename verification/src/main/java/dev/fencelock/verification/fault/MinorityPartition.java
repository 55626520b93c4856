package dev.fencelock.verification.fault;

import dev.fencelock.verification.worker.Linger;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Splits the cluster for 6 s: one member and one worker on one side, the other two members and the other workers
 * on the other, through the cluster's peer network and the workers' routes. One operation of the minority worker
 * stays in its critical section after reading its counter while the partition lasts. Its keep-alives cannot reach
 * a quorum, so its lease runs out on the majority side and another worker takes the lock while it still means to
 * write: the case in which Jepsen found etcd's locks alone unsafe. Every other injection isolates the leader (which
 * must step down), the rest a follower. Only etcd members have a peer network that can be split.
 */
final class MinorityPartition implements Fault {

    private static final Duration PARTITIONED = Duration.ofSeconds(6);
    private static final Duration NOTICE_TIMEOUT = Duration.ofSeconds(10);

    private int injections;

    @Override
    public String name() {
        return FaultKind.MINORITY_PARTITION.label();
    }

    @Override
    public void inject(FaultTarget target) throws Exception {
        StoreCluster.Member leader = target.cluster().awaitLeader(Duration.ofSeconds(15));
        boolean isolateLeader = injections++ % 2 == 0;
        StoreCluster.Member isolated =
                isolateLeader ? leader : target.cluster().followers().get(0);
        FaultTarget.Worker worker = target.nextWorker();
        List<FaultTarget.Worker> others =
                target.workers().stream().filter(other -> other != worker).toList();
        Optional<FaultTarget.LingerNotice> notice;
        long start;
        try {
            worker.confineTo(isolated);
            // It writes while the partition still lasts, well after its lease ran out on the majority side.
            worker.linger(new Linger(Linger.Phase.AFTER_READ, PARTITIONED.minusMillis(500)));
            notice = worker.awaitLingering(NOTICE_TIMEOUT);
            start = System.nanoTime();
            try {
                others.forEach(other -> other.cutFrom(isolated));
                target.etcd().isolate(isolated);
                target.hold(PARTITIONED);
            } finally {
                target.etcd().heal();
            }
        } finally {
            worker.reconnectToStore();
            others.forEach(FaultTarget.Worker::reconnectToStore);
        }
        target.window(
                name(),
                "isolated " + isolated.name() + (isolateLeader ? " (leader)" : " (follower)") + " for "
                        + PARTITIONED.toMillis() + " ms with " + worker.id() + " on its side"
                        + notice.map(n -> ", " + n.operation() + " staying after reading " + n.key())
                                .orElse(""),
                start,
                System.nanoTime());
    }
}
