package dev.fencelock.verification.fault;

import dev.fencelock.verification.fault.FaultTarget.LingerNotice;
import dev.fencelock.verification.fault.FaultTarget.QueuedKey;
import dev.fencelock.verification.worker.Linger;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Splits the cluster: one member and one worker on one side, the other two members and the other workers on the
 * other, through the cluster's peer network and the workers' routes. One operation of the minority worker stays in
 * its critical section after reading its counter. Its keep-alives cannot reach a quorum, so its lease runs out on the
 * majority side and another worker takes the lock while it still means to write: the case in which Jepsen found
 * etcd's locks alone unsafe. Every other injection isolates the leader (which must step down), the rest a follower.
 * Only etcd members have a peer network that can be split.
 *
 * <p>The stay ends on what the operator sees on the majority side, not after a fixed time: once another holder has
 * been granted the lock and has released it again (so it has written and committed), or after a bound if it cannot
 * (with the database alone as the guard, its read waits for the minority operation's row lock). How long the
 * majority takes to elect a leader and let the lease run out depends on the machine's load; a fixed stay that fits
 * an idle machine ended before it on a loaded one, and the write it was meant to catch was not stale.
 */
final class MinorityPartition implements Fault {

    /** How long the partition lasts when no operation took the linger order. */
    private static final Duration PARTITIONED = Duration.ofSeconds(6);

    /** How long the majority may take to grant the lock to another worker. */
    private static final Duration GRANT_LIMIT = Duration.ofSeconds(30);

    /** How long the other holder may take to write, commit and release. */
    private static final Duration RELEASE_LIMIT = Duration.ofSeconds(5);

    /** The partition outlasts the minority operation's write by this much. */
    private static final Duration AFTER_WRITE = Duration.ofMillis(500);

    private static final Duration NOTICE_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration POLL = Duration.ofMillis(100);

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
        Optional<LingerNotice> notice;
        String outcome = "";
        long start;
        try {
            worker.confineTo(isolated);
            // The stay's own bound only matters if the fault fails; it ends the stay itself.
            worker.linger(new Linger(
                    Linger.Phase.AFTER_READ, GRANT_LIMIT.plus(RELEASE_LIMIT).plusSeconds(10)));
            notice = worker.awaitLingering(NOTICE_TIMEOUT);
            start = System.nanoTime();
            try {
                others.forEach(other -> other.cutFrom(isolated));
                // The operator watches from the majority side.
                target.cutOperatorFrom(isolated);
                target.etcd().isolate(isolated);
                if (notice.isPresent()) {
                    outcome = awaitNextHolder(target, notice.get(), start);
                    worker.endLinger();
                    target.hold(AFTER_WRITE);
                } else {
                    target.hold(PARTITIONED);
                }
            } finally {
                worker.endLinger();
                target.etcd().heal();
            }
        } finally {
            target.reconnectOperator();
            worker.reconnectToStore();
            others.forEach(FaultTarget.Worker::reconnectToStore);
        }
        long end = System.nanoTime();
        target.window(
                name(),
                "isolated " + isolated.name() + (isolateLeader ? " (leader)" : " (follower)") + " for "
                        + (end - start) / 1_000_000 + " ms with " + worker.id() + " on its side"
                        + notice.map(n -> ", " + n.operation() + " staying after reading " + n.key())
                                .orElse("")
                        + outcome,
                start,
                end);
    }

    /** Waits until another holder of the caught operation's lock was granted it and released it; says what it saw. */
    private static String awaitNextHolder(FaultTarget target, LingerNotice notice, long start)
            throws InterruptedException {
        Optional<QueuedKey> next = awaitHead(
                target,
                notice.key(),
                head -> head.token() != 0 && head.token() != notice.token(),
                deadline(GRANT_LIMIT));
        if (next.isEmpty()) {
            return "; no other holder was granted " + notice.key() + " within " + GRANT_LIMIT.toMillis() + " ms";
        }
        long granted = System.nanoTime();
        long nextToken = next.get().token();
        Optional<QueuedKey> after =
                awaitHead(target, notice.key(), head -> head.token() != nextToken, deadline(RELEASE_LIMIT));
        return "; " + next.get().worker() + " (token " + nextToken + ") was seen holding " + notice.key() + " after "
                + (granted - start) / 1_000_000 + " ms"
                + (after.isPresent()
                        ? " and seen to release it after " + (System.nanoTime() - start) / 1_000_000 + " ms"
                        : ", not released within " + RELEASE_LIMIT.toMillis() + " ms");
    }

    /**
     * Polls {@code key}'s queue until its head (or its absence, taken as a head with token 0) passes {@code test}.
     *
     * @return that head; empty at the deadline
     */
    private static Optional<QueuedKey> awaitHead(
            FaultTarget target, String key, Predicate<QueuedKey> test, long deadline) throws InterruptedException {
        while (System.nanoTime() - deadline < 0) {
            try {
                List<QueuedKey> queue = target.queue(key);
                QueuedKey head = queue.isEmpty() ? new QueuedKey(0, "nobody") : queue.get(0);
                if (test.test(head)) {
                    return Optional.of(head);
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                // The operator's read may come while the majority elects a leader.
            }
            target.hold(POLL);
        }
        return Optional.empty();
    }

    private static long deadline(Duration duration) {
        return System.nanoTime() + duration.toNanos();
    }
}
