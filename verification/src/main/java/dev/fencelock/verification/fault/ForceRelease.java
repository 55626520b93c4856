package dev.fencelock.verification.fault;

import dev.fencelock.verification.worker.Linger;
import java.time.Duration;
import java.util.Optional;

/**
 * An operator force-releases a key while its holder is inside its critical section, so the next waiter gets the
 * lock at once. Injections alternate between two placements:
 *
 * <ul>
 *   <li>after the holder read its counter (its transaction is open): it goes on to write 1.5 s later;
 *   <li>after it acquired, before its first statement, with the holder cut off from etcd so it cannot learn of the
 *       release: it still trusts its lease when it writes 0.8 s later, so only the database can refuse it.
 * </ul>
 */
final class ForceRelease implements Fault {

    private static final Duration NOTICE_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration AFTER_READ = Duration.ofMillis(1_500);
    private static final Duration AFTER_ACQUIRE = Duration.ofMillis(800);

    private int injections;

    @Override
    public String name() {
        return FaultKind.FORCE_RELEASE.label();
    }

    @Override
    public void inject(FaultTarget target) throws Exception {
        FaultTarget.Worker worker = target.nextWorker();
        boolean afterRead = injections++ % 2 == 0;
        Linger order = afterRead
                ? new Linger(Linger.Phase.AFTER_READ, AFTER_READ)
                : new Linger(Linger.Phase.AFTER_ACQUIRE, AFTER_ACQUIRE);
        worker.linger(order);
        Optional<FaultTarget.LingerNotice> notice = worker.awaitLingering(NOTICE_TIMEOUT);
        if (notice.isEmpty()) {
            target.window(
                    name(),
                    "skipped: no operation of " + worker.id() + " reached a critical section in time",
                    System.nanoTime(),
                    System.nanoTime());
            return;
        }
        long start = System.nanoTime();
        String outcome = "force-released";
        try {
            if (!afterRead) {
                worker.cutFromEtcd();
            }
            try {
                target.forceRelease(notice.get().key());
            } catch (Exception e) {
                // In a mixed run etcd may have no quorum right now; the operator's attempt failing is part of it.
                outcome = "failed to force-release (" + e + ")";
            }
            target.hold(order.duration().plusMillis(200));
        } finally {
            if (!afterRead) {
                worker.reconnectToEtcd();
            }
        }
        target.window(
                name(),
                outcome + " " + notice.get().key() + " held by "
                        + notice.get().operation() + " (token "
                        + notice.get().token() + ") "
                        + (afterRead ? "after its read" : "before its first statement, holder cut from etcd"),
                start,
                System.nanoTime());
    }
}
