package dev.fencelock.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.verification.checker.Anomaly.Kind;
import dev.fencelock.verification.checker.Operation.Outcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Hand-made force-releases: one whose deletion nobody could see is reported, one that granted a waiter while the
 * holder still held or that the holder learned of is not. Times are milliseconds; the lease TTL is 2 s.
 */
class ForceReleaseCheckTest {

    private static final long MS = 1_000_000L;

    private final Map<String, Operation> operations = new LinkedHashMap<>();
    private final List<CommittedWrite> rows = new ArrayList<>();
    private final Map<String, Long> counters = new LinkedHashMap<>(Map.of("k2", 0L));
    private final List<FaultWindow> faults = new ArrayList<>();

    @Test
    void aForceReleaseAfterWhichTheHolderCommittedAndItsWaitersWaitedForItIsReported() {
        // The reported run: w1-0-2 caught after its read, the fault logged at 1,040 ms; yet w1-0-2 committed and its
        // release returned true, and the waiter queued behind it got the lock only after that release.
        holder("w1-0-2", 13, Outcome.OK, "", null, true);
        operation("w2-0-3", 15, 1_100, 2_520, Outcome.OK, "", 2_527L, true, null, 1);
        forceRelease(13L);

        CheckResult result = check();

        assertThat(result.anomalyCounts()).containsOnlyKeys(Kind.INJECTION_WITHOUT_EFFECT);
        assertThat(result.anomalies()).singleElement().satisfies(anomaly -> {
            assertThat(anomaly.key()).isEqualTo("k2");
            assertThat(anomaly.operationId()).isEqualTo("w1-0-2");
            assertThat(anomaly.detail())
                    .startsWith("force-release deleted token 13 of w1-0-2, yet nobody else was granted k2 while"
                            + " w1-0-2 held it, and w1-0-2 saw no loss (it ended ok, its release returned true)");
        });
    }

    @Test
    void aForceReleaseThatGrantedAWaiterWhileTheHolderStillHeldTookEffect() {
        // The holder never learned (cut off from etcd), but w2-0-3 was granted k2 at 1,100 ms, long before the
        // holder's release at 2,506 ms: only the deletion can have freed the lock. Its read waited for the holder's
        // row lock, so the data chain is intact.
        holder("w1-0-2", 13, Outcome.OK, "", null, true);
        operation("w2-0-3", 15, 1_050, 1_100, Outcome.OK, "", 2_527L, true, null, 1);
        forceRelease(13L);

        assertThat(check().anomalies()).isEmpty();
    }

    @Test
    void aForceReleaseThatTheHolderLearnedOfTookEffect() {
        // Its lost-listener ran 5 ms after the deletion; the guard then refused its write. Nobody else wanted k2.
        holder("w1-0-2", 13, Outcome.FAIL, "fenced-local", 1_045L, false);
        forceRelease(13L);

        assertThat(check().anomalies()).isEmpty();
    }

    @Test
    void aRefusedWriteOrAReleaseThatReturnsFalseIsALossAtTheHolderToo() {
        // Cut off, w1-0-2 never heard of its deletion, and the database refused its write. w3-0-8, in a run without
        // the guard, committed, but its release found the lock lost.
        holder("w1-0-2", 13, Outcome.FAIL, "fenced-db", null, true);
        operation("w3-0-8", 20, 2_890, 2_900, Outcome.OK, "", 3_400L, false, null, 0);
        forceRelease(13L);
        faults.add(new FaultWindow(
                "force-release", "k2 held by w3-0-8", 2_950 * MS, 3_600 * MS, new FaultWindow.Deletion("k2", 20L)));

        assertThat(check().anomalies()).isEmpty();
    }

    @Test
    void aProtectedTableThatRefusedTheHoldersWriteShowsTheLossButAWriteWithoutFenceDoesNot() {
        // With the client's guard off, only the protected table's trigger stood between the cut holder and the data.
        holder("w1-0-2", 13, Outcome.FAIL, "fenced-protected-table", null, true);
        forceRelease(13L);

        assertThat(check().anomalies()).isEmpty();

        // A write refused for carrying no fence says nothing about the lock: the refusal would have come anyway.
        holder("w1-0-2", 13, Outcome.FAIL, "db-no-fence", null, true);

        assertThat(check().anomalyCounts()).containsOnlyKeys(Kind.UNFENCED_WRITE, Kind.INJECTION_WITHOUT_EFFECT);
    }

    @Test
    void aForceReleaseThatDeletedNothingIsReported() {
        holder("w1-0-2", 13, Outcome.OK, "", null, true);
        forceRelease(null);

        CheckResult result = check();

        assertThat(result.anomalyCounts()).containsOnlyKeys(Kind.INJECTION_WITHOUT_EFFECT);
        assertThat(result.anomalies().get(0).detail()).contains("deleted nothing");
    }

    @Test
    void aForceReleaseThatFoundTheCaughtHolderAlreadyLostIsNoAnomaly() {
        // w1-0-2's session ran out while it lingered: its lost-listener ran at 1,030 ms, before the operator read
        // the queue, so there was nothing of it left to delete. The run did not test a deletion there, and the fault
        // log says so; the lock did nothing wrong.
        holder("w1-0-2", 13, Outcome.FAIL, "fenced-local", 1_030L, false);
        forceRelease(null);

        assertThat(check().anomalies()).isEmpty();

        // Its loss shown later than one lease TTL after the heal could have another cause: still reported.
        operation("w1-0-2", 13, 990, 1_000, Outcome.FAIL, "lock-lost", 4_790L, true, 4_800L, 0);

        assertThat(check().anomalyCounts()).containsOnlyKeys(Kind.INJECTION_WITHOUT_EFFECT);
    }

    @Test
    void evidenceCountsOnlyUntilOneLeaseTtlAfterTheHeal() {
        // The holder never finished (its worker was killed); a grant 2,100 ms after the heal at 2,700 ms is too late
        // to tell a deletion from the holder's session running out.
        operation("w1-0-2", 13, 990, 1_000, Outcome.UNFINISHED, "", null, null, null, 0);
        operation("w2-0-3", 15, 1_100, 4_800, Outcome.FAIL, "db-lock-timeout", 4_810L, true, null, 0);
        forceRelease(13L);

        assertThat(check().anomalyCounts()).containsOnlyKeys(Kind.INJECTION_WITHOUT_EFFECT);

        operation("w2-0-3", 15, 1_100, 4_600, Outcome.FAIL, "db-lock-timeout", 4_610L, true, null, 0);

        assertThat(check().anomalies()).isEmpty();
    }

    private CheckResult check() {
        History history = new History(operations, faults, 0, 10_000 * MS, 2_000 * MS, List.of());
        return HistoryChecker.check(history, new DatabaseSnapshot(rows, counters));
    }

    /** The fault log's record: caught at 1,040 ms, healed at 2,700 ms, the key with token {@code deleted} deleted. */
    private void forceRelease(Long deleted) {
        faults.add(new FaultWindow(
                "force-release",
                "k2 held by w1-0-2 (token 13)",
                1_040 * MS,
                2_700 * MS,
                new FaultWindow.Deletion("k2", deleted, 13L)));
    }

    /**
     * An operation caught inside its critical section: acquired at 1,000 ms, ended at 2,505 ms, released at 2,506
     * ms. An acknowledged one read 0 and has its row.
     */
    private void holder(String id, long token, Outcome outcome, String reason, Long lostAtMillis, boolean released) {
        operation(id, token, 990, 1_000, outcome, reason, 2_505L, released, lostAtMillis, 0);
    }

    /** One operation of k2; an acknowledged one read {@code read}, and its row is committed now. */
    private void operation(
            String id,
            long token,
            long invokedMillis,
            long acquiredMillis,
            Outcome outcome,
            String reason,
            Long completedMillis,
            Boolean releaseReturned,
            Long lostAtMillis,
            long read) {
        boolean ok = outcome == Outcome.OK;
        operations.put(
                id,
                new Operation(
                        id,
                        id.substring(0, id.indexOf('-')),
                        "k2",
                        invokedMillis * MS,
                        acquiredMillis * MS,
                        token,
                        ok ? (completedMillis - 10) * MS : null,
                        ok ? read : null,
                        ok ? (completedMillis - 5) * MS : null,
                        outcome,
                        completedMillis == null ? null : completedMillis * MS,
                        ok ? read + 1 : null,
                        reason,
                        completedMillis == null ? null : (completedMillis + 1) * MS,
                        completedMillis == null ? null : (completedMillis + 3) * MS,
                        releaseReturned,
                        lostAtMillis == null ? null : lostAtMillis * MS));
        if (ok) {
            rows.add(new CommittedWrite(
                    "k2", token, id.substring(0, id.indexOf('-')), id, read, read + 1, rows.size() + 1));
            counters.put("k2", read + 1);
        }
    }
}
