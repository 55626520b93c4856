package dev.fencelock.verification.fault;

import dev.fencelock.verification.fault.FaultTarget.Deletion;
import dev.fencelock.verification.fault.FaultTarget.LingerNotice;
import dev.fencelock.verification.fault.FaultTarget.QueuedKey;
import dev.fencelock.verification.worker.Linger;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * An operator force-releases a key while its holder is inside its critical section, so the next waiter gets the
 * lock at once. Injections alternate between two placements:
 *
 * <ul>
 *   <li>after the holder read its counter (its transaction is open): it goes on to write 1.5 s after the delete;
 *   <li>after it acquired, before its first statement, with the holder cut off from the store so it cannot learn of the
 *       release: it still trusts its lease when it writes 0.8 s after the delete, so only the database can refuse it. The cut
 *       needs a waiter of another worker next in line, one that learns of its grant and writes first; when the next
 *       in line is the holder's own worker, or nobody has queued within 200 ms, the holder is not cut and learns of
 *       the release itself.
 * </ul>
 *
 * <p>The operator first reads the lock's queue: if the operation it caught no longer holds the lock (it went on
 * before the operator could act), nothing is deleted, rather than whoever holds the lock now. The window names the
 * lock and the token of the key that was deleted, so the checker can tell whether the release took effect.
 *
 * <p>The holder's stay is counted from the delete's answer, not from when the holder stopped: the fault ends the stay
 * itself ({@code endlinger}). In a mixed run a cluster fault can hold the delete up for seconds; a stay counted from
 * its start then ended first, the holder wrote and released before the delete landed, and the deletion changed
 * nothing anyone could see.
 */
final class ForceRelease implements Fault {

    private static final Duration NOTICE_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration AFTER_READ = Duration.ofMillis(1_500);
    private static final Duration AFTER_ACQUIRE = Duration.ofMillis(800);

    /** The stay's own bound, should the fault not end it: the operator's calls take at most 10 s each. */
    private static final Duration STAY_LIMIT = Duration.ofSeconds(30);

    /** How often, and how many times, to look for a waiter behind a holder about to be cut: 200 ms of its 800. */
    private static final Duration WAITER_POLL = Duration.ofMillis(20);

    private static final int WAITER_POLLS = 10;

    private int injections;

    @Override
    public String name() {
        return FaultKind.FORCE_RELEASE.label();
    }

    @Override
    public void inject(FaultTarget target) throws Exception {
        FaultTarget.Worker worker = target.nextWorker();
        boolean afterRead = injections++ % 2 == 0;
        Duration stay = afterRead ? AFTER_READ : AFTER_ACQUIRE;
        Linger order = new Linger(afterRead ? Linger.Phase.AFTER_READ : Linger.Phase.AFTER_ACQUIRE, STAY_LIMIT);
        worker.linger(order);
        Optional<LingerNotice> lingering = worker.awaitLingering(NOTICE_TIMEOUT);
        if (lingering.isEmpty()) {
            target.window(
                    name(),
                    "skipped: no operation of " + worker.id() + " reached a critical section in time",
                    System.nanoTime(),
                    System.nanoTime());
            return;
        }
        Stay caught = new Stay(worker);
        try {
            forceRelease(target, worker, lingering.get(), afterRead, stay, caught);
        } finally {
            // Whatever happened, the caught operation goes on.
            caught.end();
        }
    }

    /** The caught operation's stay, which the fault ends once. */
    private static final class Stay {

        private final FaultTarget.Worker worker;
        private boolean ended;

        Stay(FaultTarget.Worker worker) {
            this.worker = worker;
        }

        void end() {
            if (!ended) {
                ended = true;
                worker.endLinger();
            }
        }
    }

    private void forceRelease(
            FaultTarget target,
            FaultTarget.Worker worker,
            LingerNotice notice,
            boolean afterRead,
            Duration stay,
            Stay caughtStay)
            throws InterruptedException {
        long start = System.nanoTime();
        String caught = notice.key() + " held by " + notice.operation() + " (token " + notice.token() + ")";
        List<QueuedKey> queue;
        try {
            queue = target.queue(notice.key());
            // Just after an acquisition its lock often has no waiter yet; a cut holder needs one to be granted.
            for (int poll = 0; poll < WAITER_POLLS && !afterRead && queue.size() == 1 && holds(queue, notice); poll++) {
                target.hold(WAITER_POLL);
                queue = target.queue(notice.key());
            }
        } catch (Exception e) {
            // In a mixed run the store may have no quorum right now; the operator's attempt failing is part of it.
            target.window(name(), "failed to read the queue of " + caught + " (" + e + ")", start, System.nanoTime());
            return;
        }
        if (!holds(queue, notice)) {
            target.deletionWindow(
                    name(),
                    "missed " + caught + ": after " + millisSince(start) + " ms the operator found "
                            + (queue.isEmpty()
                                    ? "no key"
                                    : "token " + queue.get(0).token() + " of "
                                            + queue.get(0).worker())
                            + " first, and deleted nothing",
                    start,
                    System.nanoTime(),
                    new Deletion(notice.key(), notice.token(), null));
            return;
        }
        boolean cut = !afterRead && queue.size() > 1 && !queue.get(1).worker().equals(worker.id());
        String placement = afterRead
                ? "after its read"
                : cut
                        ? "before its first statement, holder cut from "
                                + target.store().label()
                        : "before its first statement, not cut: "
                                + (queue.size() > 1
                                        ? "next in line is " + worker.id() + "'s own operation"
                                        : "nobody waits");
        Optional<QueuedKey> deleted = Optional.empty();
        long deletedAfter = 0;
        Exception failure = null;
        try {
            if (cut) {
                worker.cutFromStore();
            }
            try {
                deleted = target.forceRelease(notice.key());
                deletedAfter = millisSince(start);
            } catch (Exception e) {
                // In a mixed run the store may have no quorum right now; the operator's attempt failing is part of it.
                failure = e;
            }
            // From the delete on, the holder stays as long as it would have from its stop: time for a connected
            // holder to learn of the delete, and for the next holder to be granted the lock and write.
            target.hold(stay);
            caughtStay.end();
            target.hold(Duration.ofMillis(200));
        } finally {
            if (cut) {
                worker.reconnectToStore();
            }
        }
        if (failure != null) {
            // Whether the delete applied is unknown, so the window names no deleted key.
            target.window(
                    name(),
                    "failed to force-release " + caught + " (" + failure + ") " + placement,
                    start,
                    System.nanoTime());
            return;
        }
        target.deletionWindow(
                name(),
                outcome(deleted, notice, caught) + " after " + deletedAfter + " ms " + placement,
                start,
                System.nanoTime(),
                new Deletion(
                        notice.key(),
                        notice.token(),
                        deleted.map(QueuedKey::token).orElse(null)));
    }

    private static String outcome(Optional<QueuedKey> deleted, LingerNotice notice, String caught) {
        if (deleted.isEmpty()) {
            return "found nothing to force-release of " + caught + ": its key went before the delete landed";
        }
        if (deleted.get().token() != notice.token()) {
            return "force-released " + notice.key() + " token " + deleted.get().token() + " of "
                    + deleted.get().worker() + ", not " + notice.operation() + "'s token " + notice.token()
                    + ", which went before the delete landed,";
        }
        return "force-released " + caught;
    }

    private static boolean holds(List<QueuedKey> queue, LingerNotice notice) {
        return !queue.isEmpty() && queue.get(0).token() == notice.token();
    }

    private static long millisSince(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }
}
