package dev.fencelock.verification.checker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HistoryFilesTest {

    @Test
    void readsOperationsFaultsAndRunBoundsAndReportsWhatItCannotRead(@TempDir Path run) throws Exception {
        Files.write(
                run.resolve("history-w1.jsonl"),
                List.of(
                        "{\"type\":\"invoke\",\"t\":100,\"op\":\"w1-0-1\",\"worker\":\"w1\",\"key\":\"k0\"}",
                        "{\"type\":\"acquired\",\"t\":110,\"op\":\"w1-0-1\",\"token\":42}",
                        "{\"type\":\"read\",\"t\":120,\"op\":\"w1-0-1\",\"value\":7}",
                        "{\"type\":\"commit\",\"t\":130,\"op\":\"w1-0-1\"}",
                        "{\"type\":\"ok\",\"t\":140,\"op\":\"w1-0-1\",\"token\":42,\"read\":7,\"written\":8}",
                        "{\"type\":\"released\",\"t\":160,\"op\":\"w1-0-1\",\"from\":150,\"released\":true}",
                        "{\"type\":\"invoke\",\"t\":200,\"op\":\"w1-0-2\",\"worker\":\"w1\",\"key\":\"k\\\"1\\u00e9\"}",
                        "{\"type\":\"fail\",\"t\":210,\"op\":\"w1-0-2\",\"reason\":\"acquire-timeout\",\"error\":null}",
                        "{\"type\":\"invoke\",\"t\":300,\"op\":\"w1-0-3\",\"worker\":\"w1\",\"key\":\"k2\"}",
                        "{\"type\":\"read\",\"t\":310,\"op\":\"w1-0-3\",\"val"));
        Files.write(
                run.resolve(HistoryFiles.FAULTS_FILE),
                List.of(
                        "{\"type\":\"run-start\",\"t\":50}",
                        "{\"type\":\"fault\",\"name\":\"zombie\",\"detail\":\"SIGSTOP w2\",\"start\":150,\"end\":250}",
                        "{\"type\":\"run-end\",\"t\":400}"));

        History history = HistoryFiles.read(run);

        assertThat(history.runStart()).isEqualTo(50);
        assertThat(history.runEnd()).isEqualTo(400);
        assertThat(history.faults()).containsExactly(new FaultWindow("zombie", "SIGSTOP w2", 150, 250));
        assertThat(history.operations()).containsOnlyKeys("w1-0-1", "w1-0-2", "w1-0-3");
        assertThat(history.operations().get("w1-0-1"))
                .isEqualTo(new Operation(
                        "w1-0-1",
                        "w1",
                        "k0",
                        100,
                        110L,
                        42L,
                        120L,
                        7L,
                        130L,
                        Operation.Outcome.OK,
                        140L,
                        8L,
                        "",
                        150L,
                        160L,
                        true,
                        null));
        assertThat(history.operations().get("w1-0-2").key()).isEqualTo("k\"1é");
        assertThat(history.operations().get("w1-0-2").reason()).isEqualTo("acquire-timeout");
        assertThat(history.operations().get("w1-0-3").outcome()).isEqualTo(Operation.Outcome.UNFINISHED);
        assertThat(history.problems()).singleElement().asString().startsWith("history-w1.jsonl:10");
    }

    @Test
    void readsWhatAForceReleaseDeletedAndWhatItsHolderSaw(@TempDir Path run) throws Exception {
        Files.write(
                run.resolve("history-w1.jsonl"),
                List.of(
                        "{\"type\":\"invoke\",\"t\":100,\"op\":\"w1-0-1\",\"worker\":\"w1\",\"key\":\"k0\"}",
                        "{\"type\":\"acquired\",\"t\":110,\"op\":\"w1-0-1\",\"token\":42}",
                        "{\"type\":\"lost\",\"t\":125,\"op\":\"w1-0-1\",\"error\":\"LockLostException: gone\"}",
                        "{\"type\":\"fail\",\"t\":140,\"op\":\"w1-0-1\",\"reason\":\"fenced-local\",\"error\":\"x\"}",
                        "{\"type\":\"released\",\"t\":160,\"op\":\"w1-0-1\",\"from\":150,\"released\":false}"));
        Files.write(
                run.resolve(HistoryFiles.FAULTS_FILE),
                List.of(
                        "{\"type\":\"run-start\",\"t\":50,\"leaseTtlMillis\":2000}",
                        "{\"type\":\"fault\",\"name\":\"force-release\",\"detail\":\"d\",\"start\":115,\"end\":300,"
                                + "\"lockKey\":\"k0\",\"caughtToken\":42,\"deletedToken\":42}",
                        "{\"type\":\"fault\",\"name\":\"force-release\",\"detail\":\"e\",\"start\":400,\"end\":500,"
                                + "\"lockKey\":\"k1\",\"deletedToken\":null}",
                        "{\"type\":\"run-end\",\"t\":600}"));

        History history = HistoryFiles.read(run);

        assertThat(history.leaseTtl()).isEqualTo(2_000_000_000L);
        assertThat(history.faults())
                .extracting(FaultWindow::deletion)
                .containsExactly(new FaultWindow.Deletion("k0", 42L, 42L), new FaultWindow.Deletion("k1", null));
        Operation op = history.operations().get("w1-0-1");
        assertThat(op.lostAt()).isEqualTo(125L);
        assertThat(op.releaseReturned()).isFalse();
        assertThat(history.problems()).isEmpty();
    }

    @Test
    void aDatabaseSnapshotKeptBesideTheHistoriesReadsBackTheSame(@TempDir Path run) throws Exception {
        DatabaseSnapshot snapshot = new DatabaseSnapshot(
                List.of(
                        new CommittedWrite("k0", 10, "w1", "w1-0-1", 0, 1, 1),
                        new CommittedWrite("k1", 12, "w2", "w2-1-7", 0, 1, 2)),
                java.util.Map.of("k0", 1L, "k1", 1L, "k2", 0L));

        snapshot.write(run);

        assertThat(DatabaseSnapshot.read(run)).isEqualTo(snapshot);
    }

    @Test
    void jsonLinesAreFlatObjectsOnly() {
        assertThat(JsonLine.parse(" {\"a\": -3, \"b\" : true, \"c\":null} "))
                .containsEntry("a", -3L)
                .containsEntry("b", true)
                .containsEntry("c", null);
        assertThatThrownBy(() -> JsonLine.parse("{\"a\":{\"b\":1}}")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JsonLine.parse("{\"a\":1} x")).isInstanceOf(IllegalArgumentException.class);
    }
}
