package dev.fencelock.verification;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.verification.checker.Anomaly;
import dev.fencelock.verification.checker.CheckResult;
import dev.fencelock.verification.fault.FaultKind;
import dev.fencelock.verification.worker.Guard;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The results tables, from made-up runs: each guard in its own column, refusals by who refused. */
class CampaignReportTest {

    private static final Path OUT = Path.of("target", "report-test");

    @Test
    void sideBySidePutsTheTriggersOnlyRunBetweenTheFencedAndTheControlRun() {
        RunResult fenced = run(Guard.CLIENT, "zombie", Map.of("fenced-local", 21, "fenced-db", 2), List.of());
        RunResult triggers = run(
                Guard.TRIGGERS_ONLY,
                "zombie",
                Map.of("fenced-local", 18, "fenced-protected-table", 3, "acquire-timeout", 40),
                List.of());
        RunResult control = run(
                Guard.OFF,
                "zombie",
                Map.of(),
                List.of(Anomaly.Kind.LOST_UPDATE, Anomaly.Kind.LOST_UPDATE, Anomaly.Kind.INTERLEAVED));

        String table = CampaignReport.sideBySide(List.of(fenced), List.of(triggers), List.of(control));

        assertThat(table.lines())
                .containsExactly(
                        "| fault | guard on: anomalies | guard on: stale writes refused locally / by the database"
                                + " | triggers only: anomalies | triggers only: refused locally / fence table /"
                                + " protected table | guard off: anomalies |",
                        "|---|---|---|---|---|---|",
                        "| zombie | 0 | 21 / 2 | 0 | 18 / 0 / 3 | 3 (2 lost updates) |");
    }

    @Test
    void aWriteRefusedWithoutFenceShowsAsAnAnomalyOfItsRunAndRunsNotRunSaySo() {
        RunResult fenced = run(Guard.CLIENT, "leader-kill", Map.of(), List.of());
        RunResult triggers = run(
                Guard.TRIGGERS_ONLY,
                "client-cut",
                Map.of("db-no-fence", 1, "fenced-protected-table", 4),
                List.of(Anomaly.Kind.UNFENCED_WRITE));

        String table = CampaignReport.sideBySide(List.of(fenced), List.of(triggers), List.of());

        assertThat(table.lines())
                .contains(
                        "| leader-kill | 0 | 0 / 0 | not run | not run | not run |",
                        "| client-cut | not run | not run | **1**: 1 unfenced write | 0 / 0 / 4 | not run |");
        assertThat(CampaignReport.table(List.of(triggers)))
                .contains("| triggers-client-cut | triggers only |", "| **1**: 1 unfenced write |");
    }

    @Test
    void eachRunsGuardIsNamedInTheRunTable() {
        String table = CampaignReport.table(List.of(
                run(Guard.CLIENT, "zombie", Map.of(), List.of()),
                run(Guard.TRIGGERS_ONLY, "zombie", Map.of(), List.of()),
                run(Guard.OFF, "zombie", Map.of(), List.of())));

        assertThat(table)
                .contains(
                        "| fenced-zombie | on |",
                        "| triggers-zombie | triggers only |",
                        "| control-zombie | **off** |");
    }

    private static RunResult run(
            Guard guard, String fault, Map<String, Integer> failReasons, List<Anomaly.Kind> anomalies) {
        List<Anomaly> found = new ArrayList<>();
        anomalies.forEach(kind -> found.add(new Anomaly(kind, "k0", "w1-0-" + found.size(), "made up")));
        int fail = failReasons.values().stream().mapToInt(Integer::intValue).sum();
        CheckResult check = new CheckResult(
                1_000 + fail, 1_000, fail, 0, 0, 0, 1_000, failReasons, Map.of(), found, 0, 1.0, List.of(), List.of());
        CampaignSettings settings =
                CampaignSettings.of(guard.runPrefix() + "-" + fault, guard, List.of(FaultKind.ZOMBIE), OUT);
        return new RunResult(settings, check, Duration.ofSeconds(60), OUT, OUT.resolve("chart.png"), List.of());
    }
}
