package dev.fencelock.verification;

import static dev.fencelock.verification.fault.FaultKind.FORCE_RELEASE;
import static dev.fencelock.verification.fault.FaultKind.LEADER_KILL;
import static dev.fencelock.verification.fault.FaultKind.MINORITY_PARTITION;
import static dev.fencelock.verification.fault.FaultKind.ZOMBIE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.verification.checker.Anomaly;
import dev.fencelock.verification.checker.CheckResult;
import dev.fencelock.verification.checker.DatabaseSnapshot;
import dev.fencelock.verification.checker.HistoryChecker;
import dev.fencelock.verification.checker.HistoryFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The campaign's quick mode, part of every build: a short fenced run under a zombie, a leader kill and a minority
 * partition must be free of anomalies, and the same workload with the database guard off must show them, which is
 * the evidence that the faults bite and the checker can fail. Results stay in {@code target/verification-quick}.
 */
class CampaignQuickTest {

    private static final Path OUT = Path.of("target", "verification-quick");

    @Test
    void aFencedRunUnderAZombieALeaderKillAndAPartitionHasNoAnomalies() throws Exception {
        RunResult run = Campaign.run(
                CampaignSettings.of("quick-fenced", true, List.of(ZOMBIE, LEADER_KILL, MINORITY_PARTITION), OUT));

        assertThat(run.check().anomalies())
                .as("anomalies with the guard on; see " + run.directory().resolve("result.md"))
                .isEmpty();
        assertThat(run.check().ok()).isPositive();
        assertThat(run.check().recoveries()).hasSize(3);
        assertThat(run.check().problems()).isEmpty();
        assertThat(Files.size(run.chart())).isPositive();
    }

    @Test
    void theSameWorkloadWithoutTheGuardLosesUpdates() throws Exception {
        RunResult run = Campaign.run(CampaignSettings.of("quick-control", false, List.of(ZOMBIE, FORCE_RELEASE), OUT));

        assertThat(run.check().anomalyCounts())
                .as("the control run must catch the stale writers; see "
                        + run.directory().resolve("result.md"))
                .containsKey(Anomaly.Kind.LOST_UPDATE);
        assertThat(run.check().ok()).isPositive();
        // The verdict stands on the run's files alone, the database rows included.
        CheckResult again =
                HistoryChecker.check(HistoryFiles.read(run.directory()), DatabaseSnapshot.read(run.directory()));
        assertThat(again.anomalies()).isEqualTo(run.check().anomalies());
    }
}
