package dev.fencelock.verification.fault;

import java.time.Duration;

/** {@code SIGKILL}s the store's leader, leaves it down for 4 s, and starts it again with its data. */
final class LeaderKill implements Fault {

    private static final Duration DOWN = Duration.ofSeconds(4);

    @Override
    public String name() {
        return FaultKind.LEADER_KILL.label();
    }

    @Override
    public void inject(FaultTarget target) throws Exception {
        StoreCluster.Member leader = target.cluster().awaitLeader(Duration.ofSeconds(15));
        long start = System.nanoTime();
        leader.kill();
        target.hold(DOWN);
        leader.restart();
        target.window(
                name(),
                "SIGKILL leader " + leader.name() + ", restarted after " + DOWN.toMillis() + " ms",
                start,
                System.nanoTime());
    }
}
