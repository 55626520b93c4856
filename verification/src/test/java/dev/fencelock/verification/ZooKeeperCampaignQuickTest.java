package dev.fencelock.verification;

import static dev.fencelock.verification.fault.FaultKind.LEADER_KILL;
import static dev.fencelock.verification.fault.FaultKind.SESSION_EXPIRY;
import static dev.fencelock.verification.fault.FaultKind.ZOMBIE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.verification.checker.Anomaly;
import dev.fencelock.verification.checker.CheckResult;
import dev.fencelock.verification.checker.DatabaseSnapshot;
import dev.fencelock.verification.checker.HistoryChecker;
import dev.fencelock.verification.checker.HistoryFiles;
import dev.fencelock.verification.worker.Guard;
import dev.fencelock.verification.worker.Store;
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
 * The campaign's quick mode on a three-member ZooKeeper ensemble: a short fenced run under a zombie, a leader kill
 * and a session expiry must be free of anomalies, and the same workload with the database guard off must lose an
 * update under a zombie and a session expiry, each fault's caught operation taking part in one. Like {@link
 * CampaignQuickTest}, each run injects each of its faults once. Results stay in {@code target/verification-quick}.
 */
class ZooKeeperCampaignQuickTest {

    private static final Path OUT = Path.of("target", "verification-quick");

    private static final Pattern OPERATION = Pattern.compile("w\\d+-\\d+-\\d+");

    @Test
    void aFencedRunUnderAZombieALeaderKillAndASessionExpiryHasNoAnomalies() throws Exception {
        RunResult run = Campaign.run(CampaignSettings.of(
                "zk-quick-fenced", Store.ZOOKEEPER, Guard.CLIENT, List.of(ZOMBIE, LEADER_KILL, SESSION_EXPIRY), OUT));

        assertThat(run.check().anomalies())
                .as("anomalies with the guard on; see " + run.directory().resolve("result.md"))
                .isEmpty();
        assertThat(run.check().ok()).isPositive();
        assertThat(run.check().recoveries()).hasSize(3);
        assertThat(run.check().problems()).isEmpty();
        // The ensemble expired the caught holder's session while it was silent, as the operator saw.
        assertThat(run.faults())
                .filteredOn(window -> window.startsWith(SESSION_EXPIRY.label()))
                .singleElement()
                .asString()
                .contains("its session expired");
    }

    @Test
    void theSameWorkloadWithoutTheGuardLosesUpdatesUnderAZombieAndASessionExpiry() throws Exception {
        RunResult run = Campaign.run(CampaignSettings.of(
                "zk-quick-control", Store.ZOOKEEPER, Guard.OFF, List.of(ZOMBIE, SESSION_EXPIRY), OUT));

        assertThat(run.check().anomalyCounts())
                .as("the control run must catch the stale writers; see "
                        + run.directory().resolve("result.md"))
                .containsKey(Anomaly.Kind.LOST_UPDATE);
        // Each fault's caught operation took part in a lost update: as the stale writer, or as the write that
        // another, blocked behind its row lock, read past.
        Set<String> anomalous = run.check().anomalies().stream()
                .filter(anomaly -> anomaly.kind() == Anomaly.Kind.LOST_UPDATE)
                .flatMap(anomaly -> Stream.concat(
                        Stream.of(anomaly.operationId()),
                        OPERATION.matcher(anomaly.detail()).results().map(MatchResult::group)))
                .collect(Collectors.toSet());
        assertThat(run.check().recoveries()).hasSize(2).allSatisfy(recovery -> {
            Matcher operation = OPERATION.matcher(recovery.fault().detail());
            assertThat(operation.find()).as(recovery.fault().detail()).isTrue();
            assertThat(anomalous).as(recovery.fault().detail()).contains(operation.group());
        });
        CheckResult again =
                HistoryChecker.check(HistoryFiles.read(run.directory()), DatabaseSnapshot.read(run.directory()));
        assertThat(again.anomalies()).isEqualTo(run.check().anomalies());
    }
}
