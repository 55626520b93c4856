package dev.fencelock.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.verification.checker.Anomaly.Kind;
import dev.fencelock.verification.checker.Operation.Outcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Hand-made histories: a correct one passes, and each kind of violation is caught. */
class HistoryCheckerTest {

    private static final long MS = 1_000_000L;

    private final Map<String, Operation> operations = new LinkedHashMap<>();
    private final List<CommittedWrite> rows = new ArrayList<>();
    private final Map<String, Long> counters = new LinkedHashMap<>(Map.of("a", 0L, "b", 0L));
    private final List<FaultWindow> faults = new ArrayList<>();
    private long commitOrder;

    @Test
    void aCorrectHistoryHasNoAnomalies() {
        committed("w1-1", "a", 10, 0, 0);
        committed("w2-1", "a", 12, 1, 20);
        committed("w1-2", "b", 13, 0, 40);
        committed("w3-1", "a", 15, 2, 60);
        failed("w2-2", "b", "acquire-timeout", 80);
        // Commit did not answer, but it did commit: counted, not an anomaly.
        operation("w3-2", "b", Outcome.INFO, 16L, 1L, null, 100, "commit-unknown");
        row("w3-2", "b", 16, 1, 2);
        // Never finished and never committed: fine as well.
        operation("w1-3", "a", Outcome.UNFINISHED, null, null, null, 120, "");

        CheckResult result = check();

        assertThat(result.anomalies()).isEmpty();
        assertThat(result.valid()).isTrue();
        assertThat(result.ok()).isEqualTo(4);
        assertThat(result.fail()).isEqualTo(1);
        assertThat(result.info()).isEqualTo(1);
        assertThat(result.unfinished()).isEqualTo(1);
        assertThat(result.unknownApplied()).isEqualTo(1);
        assertThat(result.committed()).isEqualTo(5);
        assertThat(result.failReasons()).containsEntry("acquire-timeout", 1);
    }

    @Test
    void twoWritersThatReadTheSameValueAreALostUpdate() {
        committed("w1-1", "a", 10, 0, 0);
        // A zombie: it read 1 long ago, and commits after w3-1 already wrote 2.
        operation("w2-1", "a", Outcome.OK, 11L, 1L, 2L, 100, "");
        committed("w3-1", "a", 12, 1, 20);
        row("w2-1", "a", 11, 1, 2);

        CheckResult result = check();

        assertThat(result.anomalyCounts())
                .containsEntry(Kind.LOST_UPDATE, 1)
                .containsEntry(Kind.TOKEN_REGRESSION, 1)
                .containsEntry(Kind.COUNTER_MISMATCH, 1);
        assertThat(result.anomalies())
                .filteredOn(anomaly -> anomaly.kind() == Kind.LOST_UPDATE)
                .singleElement()
                .satisfies(anomaly -> {
                    assertThat(anomaly.operationId()).isEqualTo("w2-1");
                    assertThat(anomaly.detail()).contains("read 1", "w3-1", "left 2");
                });
    }

    @Test
    void anOperationWithTwoRowsWasAppliedTwice() {
        operation("w1-1", "a", Outcome.INFO, 10L, 0L, null, 0, "commit-unknown");
        row("w1-1", "a", 10, 0, 1);
        row("w1-1", "a", 10, 1, 2);

        CheckResult result = check();

        assertThat(result.anomalyCounts()).containsOnlyKeys(Kind.APPLIED_TWICE);
    }

    @Test
    void aSmallerTokenCommittedAfterALargerOneIsARegressionEvenWhenTheValuesChain() {
        committed("w1-1", "a", 20, 0, 0);
        committed("w2-1", "a", 17, 1, 20);

        CheckResult result = check();

        assertThat(result.anomalyCounts()).containsOnlyKeys(Kind.TOKEN_REGRESSION);
        assertThat(result.anomalies().get(0).detail()).contains("token 17 committed after token 20");
    }

    @Test
    void anAcknowledgedIncrementWithoutARowIsLost() {
        committed("w1-1", "a", 10, 0, 0);
        operation("w2-1", "a", Outcome.OK, 11L, 1L, 2L, 20, "");

        CheckResult result = check();

        assertThat(result.anomalyCounts()).containsOnlyKeys(Kind.LOST_ACKNOWLEDGED);
    }

    @Test
    void aFailedOperationMustNotHaveCommitted() {
        operation("w1-1", "a", Outcome.FAIL, 10L, 0L, null, 0, "fenced-db");
        row("w1-1", "a", 10, 0, 1);

        CheckResult result = check();

        assertThat(result.anomalyCounts()).containsOnlyKeys(Kind.FAILED_BUT_APPLIED);
    }

    @Test
    void aStaleWriteThatAProtectedTableRefusedIsCountedAndCorrect() {
        committed("w1-1", "a", 10, 0, 0);
        // Cut off, w2-1 still trusted its lease; the trigger found token 12 in the fence table and refused 11.
        operation("w2-1", "a", Outcome.FAIL, 11L, 0L, null, 20, "fenced-protected-table");
        committed("w3-1", "a", 12, 1, 40);

        CheckResult result = check();

        assertThat(result.anomalies()).isEmpty();
        assertThat(result.failReasons()).containsExactlyEntriesOf(Map.of("fenced-protected-table", 1));
    }

    @Test
    void aHoldersWriteThatAProtectedTableRefusedForCarryingNoFenceIsAnAnomaly() {
        committed("w1-1", "a", 10, 0, 0);
        // The lock was held and current, yet the session carried no fence: the trigger refused a correct holder.
        operation("w2-1", "b", Outcome.FAIL, 11L, 0L, null, 20, "db-no-fence");
        operation("w3-1", "b", Outcome.FAIL, 12L, 0L, null, 40, "db-nested-fence");

        CheckResult result = check();

        assertThat(result.anomalyCounts()).containsOnly(Map.entry(Kind.UNFENCED_WRITE, 2));
        assertThat(result.anomalies())
                .filteredOn(anomaly -> anomaly.operationId().equals("w2-1"))
                .singleElement()
                .satisfies(anomaly ->
                        assertThat(anomaly.detail()).contains("without its fence (db-no-fence)", "token 11"));
        assertThat(result.failReasons()).containsEntry("db-no-fence", 1).containsEntry("db-nested-fence", 1);
    }

    @Test
    void rowsNobodyInvokedAndAcknowledgementsThatDisagreeAreCaught() {
        committed("w1-1", "a", 10, 0, 0);
        row("ghost-1", "a", 11, 1, 2);
        operation("w2-1", "b", Outcome.OK, 12L, 0L, 1L, 20, "");
        row("w2-1", "b", 99, 0, 1);

        CheckResult result = check();

        assertThat(result.anomalyCounts()).containsOnlyKeys(Kind.UNKNOWN_WRITE, Kind.ACK_DIFFERS);
    }

    @Test
    void timestampsProveAnInterleavingOnlyWhenBothReadsPrecedeBothCommits() {
        // Both read before either noted its commit: proven; the data shows it too.
        operations.put(
                "w1-1",
                new Operation(
                        "w1-1",
                        "w1",
                        "a",
                        0,
                        1 * MS,
                        10L,
                        2 * MS,
                        0L,
                        6 * MS,
                        Outcome.OK,
                        7 * MS,
                        1L,
                        "",
                        8 * MS,
                        9 * MS,
                        true,
                        null));
        operations.put(
                "w2-1",
                new Operation(
                        "w2-1",
                        "w2",
                        "a",
                        0,
                        3 * MS,
                        11L,
                        4 * MS,
                        0L,
                        10 * MS,
                        Outcome.OK,
                        11 * MS,
                        1L,
                        "",
                        12 * MS,
                        13 * MS,
                        true,
                        null));
        row("w1-1", "a", 10, 0, 1);
        row("w2-1", "a", 11, 0, 1);

        CheckResult result = check();

        assertThat(result.anomalyCounts()).containsEntry(Kind.INTERLEAVED, 1).containsEntry(Kind.LOST_UPDATE, 1);
        assertThat(result.overlappingHolds()).isEqualTo(1);
    }

    @Test
    void availabilityCountsSecondsWithAnAcquisitionAndRecoveryWaitsForEveryKey() {
        // Acquisitions in seconds 0, 1 and 4 of a 5-second run.
        committed("w1-1", "a", 10, 0, 100);
        committed("w1-2", "b", 11, 0, 1_100);
        committed("w1-3", "a", 12, 1, 4_100);
        committed("w1-4", "b", 13, 1, 4_600);
        faults.add(new FaultWindow("leader-kill", "m1", 1_500 * MS, 4_000 * MS));
        faults.add(new FaultWindow("zombie", "w1", 4_700 * MS, 4_800 * MS));

        CheckResult result = check(5_000 * MS);

        assertThat(result.anomalies()).isEmpty();
        assertThat(result.availability()).isEqualTo(3 / 5.0);
        // a committed again at 4,105 ms and b at 4,605 ms after the heal at 4,000 ms.
        assertThat(result.recoveries().get(0).millis()).isEqualTo(605.0);
        // Nothing was acknowledged from the fault's start (1,500 ms) until a's increment at 4,105 ms.
        assertThat(result.recoveries().get(0).outageMillis()).isEqualTo(2_605.0);
        assertThat(result.recoveries().get(1).millis()).isNaN();
        assertThat(result.recoveries().get(1).outageMillis()).isEqualTo(300.0);
    }

    private CheckResult check() {
        return check(200 * MS);
    }

    private CheckResult check(long runEnd) {
        History history = new History(operations, faults, 0, runEnd, 2_000 * MS, List.of());
        return HistoryChecker.check(history, new DatabaseSnapshot(rows, counters));
    }

    /** An acknowledged increment and its row; the counter follows it. */
    private void committed(String id, String key, long token, long read, long atMillis) {
        operation(id, key, Outcome.OK, token, read, read + 1, atMillis, "");
        row(id, key, token, read, read + 1);
    }

    private void failed(String id, String key, String reason, long atMillis) {
        operation(id, key, Outcome.FAIL, null, null, null, atMillis, reason);
    }

    private void operation(
            String id, String key, Outcome outcome, Long token, Long read, Long written, long atMillis, String reason) {
        long t = atMillis * MS;
        Long completed = outcome == Outcome.UNFINISHED ? null : t + 5 * MS;
        operations.put(
                id,
                new Operation(
                        id,
                        id.substring(0, id.indexOf('-')),
                        key,
                        t,
                        token == null ? null : t + MS,
                        token,
                        read == null ? null : t + 2 * MS,
                        read,
                        read == null ? null : t + 3 * MS,
                        outcome,
                        completed,
                        written,
                        reason,
                        token == null ? null : t + 6 * MS,
                        token == null ? null : t + 7 * MS,
                        token == null ? null : true,
                        null));
    }

    /** A committed row; the counter takes its written value, as the database would. */
    private void row(String id, String key, long token, long read, long written) {
        rows.add(new CommittedWrite(key, token, id.substring(0, id.indexOf('-')), id, read, written, ++commitOrder));
        counters.put(key, written);
    }
}
