package dev.fencelock.verification.fault;

import dev.fencelock.verification.fault.FaultTarget.LingerNotice;
import dev.fencelock.verification.fault.FaultTarget.QueuedKey;
import dev.fencelock.verification.worker.Linger;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * ZooKeeper's session expiry: one worker's routes fall silent (sockets open, no byte through) while one of its
 * operations stays in its critical section after reading its counter, until the ensemble has expired the worker's
 * session: the operator sees the caught holder's node gone from the lock's queue. One second later the routes come
 * back; the worker's client learns that its session is over, must open a new one for its next locks, and the caught
 * operation, which lingers for the lease TTL plus 3 s in all, goes on to write under its old token.
 *
 * <p>A client cut also outlasts the session, but with connections refused at once; here the client hears nothing,
 * and the expiry is confirmed at the server rather than assumed from the time that passed.
 */
final class SessionExpiry implements Fault {

    private static final Duration NOTICE_TIMEOUT = Duration.ofSeconds(10);

    /** How long, beyond the lease TTL, the ensemble may take to expire the session before the fault gives up. */
    private static final Duration EXPIRY_GRACE = Duration.ofSeconds(20);

    private static final Duration POLL = Duration.ofMillis(100);

    /** Time for another worker to be granted the lock and write, while the expired worker is still silent. */
    private static final Duration AFTER_EXPIRY = Duration.ofSeconds(1);

    @Override
    public String name() {
        return FaultKind.SESSION_EXPIRY.label();
    }

    @Override
    public void inject(FaultTarget target) throws Exception {
        FaultTarget.Worker worker = target.nextWorker();
        worker.linger(new Linger(Linger.Phase.AFTER_READ, target.leaseTtl().plusSeconds(3)));
        Optional<LingerNotice> notice = worker.awaitLingering(NOTICE_TIMEOUT);
        long start = System.nanoTime();
        String outcome;
        try {
            worker.silenceStore();
            if (notice.isPresent()) {
                long expiredAt = awaitNodeGone(target, notice.get());
                outcome = expiredAt < 0
                        ? "its session was not seen to expire within "
                                + target.leaseTtl().plus(EXPIRY_GRACE).toMillis() + " ms"
                        : "its session expired: " + notice.get().operation() + "'s node of "
                                + notice.get().key()
                                + " (token " + notice.get().token() + ") was gone after "
                                + (expiredAt - start) / 1_000_000 + " ms";
                target.hold(AFTER_EXPIRY);
            } else {
                outcome = "outside a critical section (no operation reached one in time)";
                target.hold(target.leaseTtl().plusSeconds(3));
            }
        } finally {
            worker.reconnectToStore();
        }
        target.window(
                name(),
                "silenced " + worker.id() + " for " + (System.nanoTime() - start) / 1_000_000 + " ms, " + outcome,
                start,
                System.nanoTime());
    }

    /** When the operator first saw the caught holder's node gone; -1 if not in time. */
    private static long awaitNodeGone(FaultTarget target, LingerNotice notice) throws InterruptedException {
        long deadline = System.nanoTime() + target.leaseTtl().plus(EXPIRY_GRACE).toNanos();
        while (System.nanoTime() - deadline < 0) {
            try {
                List<QueuedKey> queue = target.queue(notice.key());
                if (queue.stream().noneMatch(key -> key.token() == notice.token())) {
                    return System.nanoTime();
                }
            } catch (Exception e) {
                // In a mixed run the ensemble may have no quorum right now; the operator tries again.
                if (e instanceof InterruptedException interrupted) {
                    throw interrupted;
                }
            }
            target.hold(POLL);
        }
        return -1;
    }
}
