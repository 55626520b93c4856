package dev.fencelock.verification.fault;

import java.time.Duration;
import java.util.List;

/** {@code SIGSTOP}s the leader and one follower for 4 s: no quorum, yet every socket stays open. */
final class MajorityPause implements Fault {

    private static final Duration PAUSED = Duration.ofSeconds(4);

    @Override
    public String name() {
        return FaultKind.MAJORITY_PAUSE.label();
    }

    @Override
    public void inject(FaultTarget target) throws Exception {
        StoreCluster.Member leader = target.cluster().awaitLeader(Duration.ofSeconds(15));
        List<StoreCluster.Member> majority =
                List.of(leader, target.cluster().followers().get(0));
        long start = System.nanoTime();
        try {
            majority.forEach(StoreCluster.Member::pause);
            target.hold(PAUSED);
        } finally {
            majority.forEach(StoreCluster.Member::resume);
        }
        target.window(
                name(),
                "SIGSTOP " + majority.get(0).name() + " (leader) and "
                        + majority.get(1).name() + " for " + PAUSED.toMillis() + " ms",
                start,
                System.nanoTime());
    }
}
