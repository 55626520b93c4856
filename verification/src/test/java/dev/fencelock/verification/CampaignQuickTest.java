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
import dev.fencelock.verification.worker.Guard;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The campaign's quick mode, part of every build: a short fenced run under a zombie, a leader kill, a minority
 * partition and a force-release must be free of anomalies (a force-release that changed nothing is one), so must a
 * run under a zombie whose tables alone check the fence (the client's guard off), and the
 * same workload with the database guard off must lose an update under
 * each of a zombie, a minority partition and a force-release, which is the evidence that the faults bite and the
 * checker can fail. Results stay in {@code target/verification-quick}.
 */
class CampaignQuickTest {

    private static final Path OUT = Path.of("target", "verification-quick");

    private static final Pattern OPERATION = Pattern.compile("w\\d+-\\d+-\\d+");

    @Test
    void aFencedRunUnderAZombieALeaderKillAPartitionAndAForceReleaseHasNoAnomalies() throws Exception {
        RunResult run = Campaign.run(CampaignSettings.of(
                "quick-fenced", Guard.CLIENT, List.of(ZOMBIE, LEADER_KILL, MINORITY_PARTITION, FORCE_RELEASE), OUT));

        assertThat(run.check().anomalies())
                .as("anomalies with the guard on; see " + run.directory().resolve("result.md"))
                .isEmpty();
        assertThat(run.check().ok()).isPositive();
        assertThat(run.check().recoveries()).hasSize(4);
        assertThat(run.check().problems()).isEmpty();
        assertThat(Files.size(run.chart())).isPositive();
    }

    @Test
    void aRunWhoseTablesAloneCheckTheFenceUnderAZombieHasNoAnomalies() throws Exception {
        RunResult run = Campaign.run(CampaignSettings.of("quick-triggers", Guard.TRIGGERS_ONLY, List.of(ZOMBIE), OUT));

        // Every write reached a protected table, so a write without its fence would have been refused and reported.
        assertThat(run.check().anomalies())
                .as("anomalies with the protected tables alone; see "
                        + run.directory().resolve("result.md"))
                .isEmpty();
        assertThat(run.check().ok()).isPositive();
        assertThat(run.check().recoveries()).hasSize(1);
        // The client never presented a fence to the fence table itself.
        assertThat(run.check().failReasons()).doesNotContainKey("fenced-db");
    }

    @Test
    void theSameWorkloadWithoutTheGuardLosesUpdatesUnderEachFault() throws Exception {
        RunResult run = Campaign.run(CampaignSettings.of(
                "quick-control", Guard.OFF, List.of(ZOMBIE, MINORITY_PARTITION, FORCE_RELEASE), OUT));

        assertThat(run.check().anomalyCounts())
                .as("the control run must catch the stale writers; see "
                        + run.directory().resolve("result.md"))
                .containsKey(Anomaly.Kind.LOST_UPDATE)
                .doesNotContainKey(Anomaly.Kind.INJECTION_WITHOUT_EFFECT);
        // Each fault names the operation it caught inside its critical section; each of them took part in a lost
        // update: as the writer that read stale data, or as the write that another, blocked behind its row lock,
        // read past (the anomaly then names it as the previous committed write).
        Set<String> anomalous = run.check().anomalies().stream()
                .filter(anomaly -> anomaly.kind() == Anomaly.Kind.LOST_UPDATE)
                .flatMap(anomaly -> Stream.concat(
                        Stream.of(anomaly.operationId()),
                        OPERATION.matcher(anomaly.detail()).results().map(MatchResult::group)))
                .collect(Collectors.toSet());
        assertThat(run.check().recoveries()).hasSize(3).allSatisfy(recovery -> {
            Matcher operation = OPERATION.matcher(recovery.fault().detail());
            assertThat(operation.find()).as(recovery.fault().detail()).isTrue();
            assertThat(anomalous).as(recovery.fault().detail()).contains(operation.group());
        });
        // The verdict stands on the run's files alone, the database rows included.
        CheckResult again =
                HistoryChecker.check(HistoryFiles.read(run.directory()), DatabaseSnapshot.read(run.directory()));
        assertThat(again.anomalies()).isEqualTo(run.check().anomalies());
    }
}
