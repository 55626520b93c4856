package dev.fencelock.verification.checker;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ToLongFunction;

/**
 * Checks one run's history against the database it produced.
 *
 * <p>Every increment reads its key's counter, updates the counter row to what it read plus one, then inserts a
 * history row with a value drawn from a sequence, and commits. The counter row's lock is held from the update to
 * the commit, so of two committed increments of one key, the one that updated first also drew first and committed
 * first: the sequence orders each key's committed writes as the database committed them. On that order the
 * checker requires:
 *
 * <ul>
 *   <li>every acknowledged operation has exactly one row, every failed one none, no row is unaccounted for, and
 *       each counter equals its number of rows (acknowledged plus unknown ones that did commit);
 *   <li>each write read what the previous write of its key produced (starting at 0) and wrote that plus one;
 *   <li>tokens never decrease;
 *   <li>no protected table refused a write for carrying no fence: every write of the workload runs under a lock;
 *   <li>every force-release took effect ({@link ForceReleaseCheck}).
 * </ul>
 *
 * <p>Two committed critical sections of one key that interleave (both read before either committed) read the same
 * value, so the chain check catches every interleaving the database saw. The workers' timestamps can only confirm
 * some of them: a read happened before the worker noted it, a commit after the worker noted it was about to
 * commit, so {@code A.readAt < B.commitAt && B.readAt < A.commitAt} proves an overlap, while the converse proves
 * nothing. Those proven overlaps are reported too, as a cross-check of the data.
 */
public final class HistoryChecker {

    private static final long SECOND = 1_000_000_000L;

    /**
     * The reasons a worker gives a write that a protected table refused without looking at a token: it carried no
     * fence, or came from a nested transaction.
     */
    private static final List<String> UNFENCED_REASONS = List.of("db-no-fence", "db-nested-fence");

    private HistoryChecker() {}

    /** Checks {@code history} against {@code database}. */
    public static CheckResult check(History history, DatabaseSnapshot database) {
        Map<String, Operation> operations = history.operations();
        List<Anomaly> anomalies = new ArrayList<>();
        Map<String, List<CommittedWrite>> rowsByOperation = new HashMap<>();
        database.writes()
                .forEach(row -> rowsByOperation
                        .computeIfAbsent(row.operationId(), id -> new ArrayList<>())
                        .add(row));

        int ok = 0, fail = 0, info = 0, unfinished = 0, unknownApplied = 0;
        Map<String, Integer> failReasons = new TreeMap<>();
        Map<String, Integer> infoReasons = new TreeMap<>();
        for (Operation op : operations.values()) {
            List<CommittedWrite> rows = rowsByOperation.getOrDefault(op.id(), List.of());
            switch (op.outcome()) {
                case OK -> {
                    ok++;
                    if (rows.isEmpty()) {
                        anomalies.add(new Anomaly(
                                Anomaly.Kind.LOST_ACKNOWLEDGED, op.key(), op.id(), "acknowledged, but no row"));
                    } else {
                        compareWithAcknowledgement(op, rows.get(0), anomalies);
                    }
                }
                case FAIL -> {
                    fail++;
                    failReasons.merge(op.reason(), 1, Integer::sum);
                    if (UNFENCED_REASONS.contains(op.reason())) {
                        anomalies.add(new Anomaly(
                                Anomaly.Kind.UNFENCED_WRITE,
                                op.key(),
                                op.id(),
                                "refused by a protected table as a write without its fence (" + op.reason()
                                        + "), though it ran under the lock with token " + op.token()));
                    }
                    if (!rows.isEmpty()) {
                        anomalies.add(new Anomaly(
                                Anomaly.Kind.FAILED_BUT_APPLIED,
                                op.key(),
                                op.id(),
                                "failed (" + op.reason() + "), yet " + rows.size() + " row(s)"));
                    }
                }
                case INFO, UNFINISHED -> {
                    if (op.outcome() == Operation.Outcome.INFO) {
                        info++;
                        infoReasons.merge(op.reason(), 1, Integer::sum);
                    } else {
                        unfinished++;
                    }
                    unknownApplied += rows.isEmpty() ? 0 : 1;
                }
            }
            if (rows.size() > 1) {
                anomalies.add(new Anomaly(
                        Anomaly.Kind.APPLIED_TWICE, op.key(), op.id(), rows.size() + " rows for one operation"));
            }
        }
        rowsByOperation.forEach((id, rows) -> {
            if (!operations.containsKey(id)) {
                anomalies.add(new Anomaly(
                        Anomaly.Kind.UNKNOWN_WRITE, rows.get(0).key(), id, "row of an operation nobody invoked"));
            }
        });
        checkChains(database, anomalies);
        checkProvenOverlaps(operations, rowsByOperation, anomalies);
        ForceReleaseCheck.check(history, anomalies);
        return new CheckResult(
                operations.size(),
                ok,
                fail,
                info,
                unfinished,
                unknownApplied,
                database.writes().size(),
                failReasons,
                infoReasons,
                List.copyOf(anomalies),
                overlappingHolds(operations),
                availability(history),
                recoveries(history),
                history.problems());
    }

    private static void compareWithAcknowledgement(Operation op, CommittedWrite row, List<Anomaly> anomalies) {
        boolean same = row.key().equals(op.key())
                && op.token() != null
                && row.token() == op.token()
                && op.valueRead() != null
                && row.valueRead() == op.valueRead()
                && op.valueWritten() != null
                && row.valueWritten() == op.valueWritten();
        if (!same) {
            anomalies.add(new Anomaly(
                    Anomaly.Kind.ACK_DIFFERS,
                    op.key(),
                    op.id(),
                    "acknowledged key " + op.key() + ", token " + op.token() + ", " + op.valueRead() + " -> "
                            + op.valueWritten() + "; row says key " + row.key() + ", token " + row.token() + ", "
                            + row.valueRead() + " -> " + row.valueWritten()));
        }
    }

    private static void checkChains(DatabaseSnapshot database, List<Anomaly> anomalies) {
        Map<String, List<CommittedWrite>> byKey = new TreeMap<>();
        database.writes()
                .forEach(row ->
                        byKey.computeIfAbsent(row.key(), k -> new ArrayList<>()).add(row));
        for (Map.Entry<String, List<CommittedWrite>> entry : byKey.entrySet()) {
            List<CommittedWrite> rows = new ArrayList<>(entry.getValue());
            rows.sort(Comparator.comparingLong(CommittedWrite::commitOrder));
            CommittedWrite previous = null;
            for (CommittedWrite row : rows) {
                long expectedRead = previous == null ? 0 : previous.valueWritten();
                if (row.valueRead() != expectedRead) {
                    anomalies.add(new Anomaly(
                            Anomaly.Kind.LOST_UPDATE,
                            row.key(),
                            row.operationId(),
                            "read " + row.valueRead() + ", but the previous committed write "
                                    + (previous == null ? "(none)" : "(" + previous.operationId() + ")") + " left "
                                    + expectedRead));
                }
                if (row.valueWritten() != row.valueRead() + 1) {
                    anomalies.add(new Anomaly(
                            Anomaly.Kind.BAD_INCREMENT,
                            row.key(),
                            row.operationId(),
                            "read " + row.valueRead() + ", wrote " + row.valueWritten()));
                }
                if (previous != null && row.token() < previous.token()) {
                    anomalies.add(new Anomaly(
                            Anomaly.Kind.TOKEN_REGRESSION,
                            row.key(),
                            row.operationId(),
                            "token " + row.token() + " committed after token " + previous.token() + " ("
                                    + previous.operationId() + ")"));
                }
                previous = row;
            }
        }
        TreeSet<String> keys = new TreeSet<>(database.counters().keySet());
        keys.addAll(byKey.keySet());
        for (String key : keys) {
            long counter = database.counters().getOrDefault(key, 0L);
            int increments = byKey.getOrDefault(key, List.of()).size();
            if (counter != increments) {
                anomalies.add(new Anomaly(
                        Anomaly.Kind.COUNTER_MISMATCH,
                        key,
                        "",
                        "counter is " + counter + " after " + increments + " committed increments"));
            }
        }
    }

    /** Pairs of committed operations whose recorded [read, commit] intervals overlap: a proven interleaving. */
    private static void checkProvenOverlaps(
            Map<String, Operation> operations,
            Map<String, List<CommittedWrite>> rowsByOperation,
            List<Anomaly> anomalies) {
        Map<String, List<Operation>> committedByKey = new TreeMap<>();
        for (Operation op : operations.values()) {
            if (rowsByOperation.containsKey(op.id()) && op.readAt() != null && op.commitAt() != null) {
                committedByKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
            }
        }
        committedByKey
                .values()
                .forEach(ops -> forEachOverlap(ops, Operation::readAt, Operation::commitAt, (a, b) -> {
                    anomalies.add(new Anomaly(
                            Anomaly.Kind.INTERLEAVED,
                            b.key(),
                            b.id(),
                            "read before " + a.id() + " committed, and " + a.id() + " read before it committed"));
                }));
    }

    /** Pairs of operations of one key that held the lock at once by their own account. */
    private static long overlappingHolds(Map<String, Operation> operations) {
        Map<String, List<Operation>> heldByKey = new TreeMap<>();
        for (Operation op : operations.values()) {
            if (op.acquiredAt() != null && holdEnd(op) != null) {
                heldByKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
            }
        }
        long[] pairs = {0};
        heldByKey
                .values()
                .forEach(ops -> forEachOverlap(ops, Operation::acquiredAt, op -> holdEnd(op), (a, b) -> pairs[0]++));
        return pairs[0];
    }

    private static Long holdEnd(Operation op) {
        return op.releaseStartedAt() != null ? op.releaseStartedAt() : op.completedAt();
    }

    private interface PairAction {
        void accept(Operation earlier, Operation later);
    }

    /** Calls {@code action} for every pair whose intervals [start, end) overlap, by a sweep over the starts. */
    private static void forEachOverlap(
            List<Operation> ops, ToLongFunction<Operation> start, ToLongFunction<Operation> end, PairAction action) {
        List<Operation> sorted = new ArrayList<>(ops);
        sorted.sort(Comparator.comparingLong(start));
        PriorityQueue<Operation> open = new PriorityQueue<>(Comparator.comparingLong(end));
        for (Operation op : sorted) {
            long begins = start.applyAsLong(op);
            while (!open.isEmpty() && end.applyAsLong(open.peek()) <= begins) {
                open.poll();
            }
            for (Operation earlier : open) {
                action.accept(earlier, op);
            }
            open.add(op);
        }
    }

    private static double availability(History history) {
        long seconds = Math.max(1, (history.runEnd() - history.runStart()) / SECOND);
        boolean[] acquired = new boolean[(int) seconds];
        for (Operation op : history.operations().values()) {
            if (op.acquiredAt() != null) {
                long second = (op.acquiredAt() - history.runStart()) / SECOND;
                if (second >= 0 && second < seconds) {
                    acquired[(int) second] = true;
                }
            }
        }
        int available = 0;
        for (boolean second : acquired) {
            available += second ? 1 : 0;
        }
        return (double) available / seconds;
    }

    private static List<CheckResult.Recovery> recoveries(History history) {
        TreeSet<String> keys = new TreeSet<>();
        history.operations().values().forEach(op -> keys.add(op.key()));
        long[] acknowledged = history.operations().values().stream()
                .filter(op -> op.outcome() == Operation.Outcome.OK)
                .mapToLong(Operation::completedAt)
                .sorted()
                .toArray();
        List<CheckResult.Recovery> recoveries = new ArrayList<>();
        for (FaultWindow fault : history.faults()) {
            Map<String, Long> firstOk = new HashMap<>();
            for (Operation op : history.operations().values()) {
                if (op.outcome() == Operation.Outcome.OK && op.completedAt() > fault.end()) {
                    firstOk.merge(op.key(), op.completedAt(), Math::min);
                }
            }
            boolean recovered = firstOk.keySet().containsAll(keys);
            long recoveredAt = recovered
                    ? firstOk.values().stream().mapToLong(Long::longValue).max().orElse(fault.end())
                    : history.runEnd();
            double millis = recovered ? (recoveredAt - fault.end()) / 1e6 : Double.NaN;
            recoveries.add(
                    new CheckResult.Recovery(fault, millis, longestGap(acknowledged, fault.start(), recoveredAt)));
        }
        return recoveries;
    }

    /** The longest gap between {@code from}, the sorted {@code times} inside it, and {@code to}, in milliseconds. */
    private static double longestGap(long[] times, long from, long to) {
        long longest = 0;
        long previous = from;
        for (long t : times) {
            if (t <= from) {
                continue;
            }
            if (t >= to) {
                break;
            }
            longest = Math.max(longest, t - previous);
            previous = t;
        }
        return Math.max(longest, to - previous) / 1e6;
    }
}
