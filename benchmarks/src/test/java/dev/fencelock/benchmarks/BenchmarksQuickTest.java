package dev.fencelock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs every scenario in quick mode against a real three-member etcd and a real Redis, so the
 * benchmark module never rots. Asserts sanity only — it ran, nothing was held twice, every system
 * made progress — never a performance threshold: CI machines are shared and noisy. Progress is
 * counted over each whole case, warm-up included, because a store can stall through a short
 * measured window on a busy machine without anything being wrong.
 */
class BenchmarksQuickTest {

    @Test
    void everyScenarioRunsAndStaysSafe(@TempDir Path out) throws Exception {
        BenchmarkReport report = BenchmarkMain.run(BenchSettings.quick(out), Set.of("1", "2", "3", "4", "5", "6", "7"));

        assertThat(report.workload()).hasSize(1);
        DesignWorkloadScenario.Result workload = report.workload().get(0);
        assertThat(workload.completed()).isPositive();
        assertThat(workload.acquire().getTotalCount()).isPositive();
        assertThat(workload.heapBytesPerLock()).isPositive();
        assertThat(workload.sessions()).isEqualTo(1);
        assertThat(workload.tokenRegressions()).isZero();

        // FenceLock twice (release() and releaseAsync()), raw etcd, jetcd Lock, Redisson; 3 concurrencies.
        assertThat(report.uncontended()).hasSize(5 * 3);
        assertThat(report.uncontended()).allSatisfy(c -> {
            assertThat(c.allOperations())
                    .as(c.system() + " x" + c.concurrency())
                    .isPositive();
        });

        // Raw etcd cannot wait for a key; 2 contender counts.
        assertThat(report.hotKey()).hasSize(4 * 2);
        assertThat(report.hotKey()).allSatisfy(c -> {
            assertThat(c.allOperations())
                    .as(c.system() + " x" + c.concurrency())
                    .isPositive();
            assertThat(c.violations()).as(c.system() + " double holders").isZero();
        });

        // Every system of scenario 2, each thread re-locking its own resource; 3 concurrencies.
        assertThat(report.relock()).hasSize(5 * 3);
        assertThat(report.relock()).allSatisfy(c -> {
            assertThat(c.allOperations())
                    .as(c.system() + " x" + c.concurrency())
                    .isPositive();
            assertThat(c.errors())
                    .as(c.system() + " x" + c.concurrency() + " errors")
                    .isZero();
            assertThat(c.violations())
                    .as(c.system() + " double holders or token regressions")
                    .isZero();
            assertThat(c.sharing().contended())
                    .as(c.system() + " threads met on a resource")
                    .isZero();
        });

        // Raw etcd cannot wait for a key; 2 thread counts. Skewed keys meet and come back.
        assertThat(report.zipf()).hasSize(4 * 2);
        assertThat(report.zipf()).allSatisfy(c -> {
            assertThat(c.allOperations())
                    .as(c.system() + " x" + c.concurrency())
                    .isPositive();
            assertThat(c.violations())
                    .as(c.system() + " double holders or token regressions")
                    .isZero();
            assertThat(c.sharing().acquisitions())
                    .as(c.system() + " checked holds")
                    .isPositive();
            assertThat(c.sharing().reused())
                    .as(c.system() + " reused resources")
                    .isPositive();
        });
        assertThat(report.zipf().stream()
                        .mapToLong(c -> c.sharing().contended())
                        .sum())
                .as("contended acquisitions over all systems")
                .isPositive();

        FailoverScenario.Result failover = report.failover();
        assertThat(failover).isNotNull();
        assertThat(failover.doubleHolders()).isZero();
        assertThat(failover.tokenRegressions()).isZero();
        assertThat(failover.recoveryMillis()).isNotNaN();
        assertThat(failover.after()).isPositive();

        DegradedScenario.Result degraded = report.degraded();
        assertThat(degraded).isNotNull();
        assertThat(degraded.failedMember()).isNotEqualTo(degraded.leader());
        assertThat(degraded.workload().completed()).isPositive();
        assertThat(degraded.workload().tokenRegressions()).isZero();
        // The maintenance really ran in the window: compactions, and one defragmentation per running member.
        assertThat(degraded.compactions())
                .isNotEmpty()
                .allSatisfy(run -> assertThat(run.failure()).as(run.what()).isNull());
        assertThat(degraded.defrags())
                .hasSize(2)
                .allSatisfy(run -> assertThat(run.failure()).as(run.what()).isNull());
        assertThat(degraded.check().acquisitions()).isPositive();
        assertThat(degraded.check().doubleHolders()).isZero();
        assertThat(degraded.check().tokenRegressions()).isZero();
        assertThat(degraded.slowestSeconds()).isNotEmpty();

        assertThat(out.resolve(BenchmarkMain.RESULTS)).exists();
        assertThat(Files.readString(out.resolve(BenchmarkMain.RESULTS)))
                .contains("### Scenario 5", "### Scenario 6", "### Scenario 7");
        assertThat(Files.size(out.resolve(BenchmarkMain.CHART))).isPositive();
    }
}
