package dev.fencelock.verification.checker;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Checks that every force-release changed something the workload could see.
 *
 * <p>Deleting a holder's key frees its lock in etcd at once: the next waiter holds it, and the holder is told within
 * one watch event unless it is cut off from etcd. So after a force-release that deleted the key with token {@code
 * T}, the histories must show, from the fault's start until one lease TTL after its heal:
 *
 * <ul>
 *   <li>a loss at the holder, the operation that acquired the lock with token {@code T}: its lost-listener ran, the
 *       fence guard or a protected table refused its write ({@code fenced-local}, {@code fenced-db}, {@code
 *       fenced-protected-table}), or its {@code release()} returned {@code false}; or
 *   <li>a grant of the lock to another operation while that holder still held it by its own account (before its
 *       release began), which no release of its own can explain.
 * </ul>
 *
 * <p>A force-release that deleted nothing because the holder it caught had lost its key already (its session ran
 * out while it lingered, and the holder showed the loss by the bound below) tested nothing and says so in its
 * detail; it is no anomaly. A force-release that deleted nothing otherwise, or whose deletion shows neither, is
 * reported as {@link
 * Anomaly.Kind#INJECTION_WITHOUT_EFFECT}: the run did not test what its fault log says. The bound is one lease TTL
 * after the heal: by then a holder has heard of the deletion through its watch or, still unable to reach etcd, has
 * passed its session's local deadline and counts the lock as lost anyway; later evidence could have any cause.
 */
final class ForceReleaseCheck {

    private ForceReleaseCheck() {}

    static void check(History history, List<Anomaly> anomalies) {
        Map<String, List<Operation>> acquiredByKey = new HashMap<>();
        for (Operation op : history.operations().values()) {
            if (op.acquiredAt() != null && op.token() != null) {
                acquiredByKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
            }
        }
        for (FaultWindow fault : history.faults()) {
            FaultWindow.Deletion deletion = fault.deletion();
            if (deletion == null) {
                continue;
            }
            List<Operation> ops = acquiredByKey.getOrDefault(deletion.lockKey(), List.of());
            long until = fault.end() + history.leaseTtl();
            if (deletion.token() == null) {
                if (lostAlready(ops, deletion.caughtToken(), until)) {
                    // Its key was gone before the delete: the fault found nothing to test, and its detail says so.
                    continue;
                }
                anomalies.add(new Anomaly(
                        Anomaly.Kind.INJECTION_WITHOUT_EFFECT,
                        deletion.lockKey(),
                        "",
                        fault.name() + " deleted nothing: " + fault.detail()));
                continue;
            }
            long token = deletion.token();
            Operation holder =
                    ops.stream().filter(op -> op.token() == token).findFirst().orElse(null);
            Long lossAt = holder == null ? null : lossAt(holder);
            boolean lost = lossAt != null && lossAt >= fault.start() && lossAt <= until;
            long heldUntil = Math.min(until, holder == null ? Long.MAX_VALUE : holdEnd(holder));
            boolean granted = ops.stream()
                    .anyMatch(op -> op != holder
                            && op.token() > token
                            && op.acquiredAt() >= fault.start()
                            && op.acquiredAt() <= heldUntil);
            if (!lost && !granted) {
                anomalies.add(new Anomaly(
                        Anomaly.Kind.INJECTION_WITHOUT_EFFECT,
                        deletion.lockKey(),
                        holder == null ? "" : holder.id(),
                        fault.name() + " deleted token " + token + withoutEffect(holder, deletion.lockKey())
                                + ", up to one lease TTL after the heal; the fault log says: " + fault.detail()));
            }
        }
    }

    /** Whether the caught holder showed a loss of its own by {@code until}, so a delete had nothing left to delete. */
    private static boolean lostAlready(List<Operation> ops, Long caughtToken, long until) {
        if (caughtToken == null) {
            return false;
        }
        Long lossAt = ops.stream()
                .filter(op -> op.token() == caughtToken.longValue())
                .findFirst()
                .map(ForceReleaseCheck::lossAt)
                .orElse(null);
        return lossAt != null && lossAt <= until;
    }

    /** When the holder first showed that it had lost the lock, or {@code null} if it never did. */
    private static Long lossAt(Operation op) {
        Long at = op.lostAt();
        if (op.outcome() == Operation.Outcome.FAIL && op.reason().startsWith("fenced")) {
            at = earliest(at, op.completedAt());
        }
        if (Boolean.FALSE.equals(op.releaseReturned())) {
            at = earliest(at, op.releasedAt());
        }
        return at;
    }

    private static Long earliest(Long a, Long b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return Math.min(a, b);
    }

    /** Until when the operation held the lock by its own account; it still does if it never ended. */
    private static long holdEnd(Operation op) {
        Long end = op.releaseStartedAt() != null ? op.releaseStartedAt() : op.completedAt();
        return end == null ? Long.MAX_VALUE : end;
    }

    private static String withoutEffect(Operation holder, String lockKey) {
        if (holder == null) {
            return ", which no operation had acquired, yet nobody was granted " + lockKey;
        }
        String outcome = holder.outcome().name().toLowerCase(Locale.ROOT)
                + (holder.reason().isEmpty() ? "" : " (" + holder.reason() + ")");
        String release = holder.releaseReturned() == null ? "" : ", its release returned " + holder.releaseReturned();
        return " of " + holder.id() + ", yet nobody else was granted " + lockKey + " while " + holder.id()
                + " held it, and " + holder.id() + " saw no loss (it ended " + outcome + release + ")";
    }
}
