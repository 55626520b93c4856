package dev.fencelock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HoldChecksTest {

    @Test
    void aSecondHolderIsAViolation() {
        HoldChecks checks = new HoldChecks(false);
        HoldChecks.Resource first = checks.arriving("a");
        HoldChecks.Resource second = checks.arriving("a");
        checks.acquired(first, 1, LockSystem.NO_TOKEN);
        checks.acquired(second, 2, LockSystem.NO_TOKEN);

        assertThat(checks.violations()).isEqualTo(1);
        assertThat(checks.sharing().contended()).isEqualTo(1);
    }

    @Test
    void aTokenThatDidNotGrowIsAViolation() {
        HoldChecks checks = new HoldChecks(true);
        cycle(checks, "a", 1, 10);
        cycle(checks, "a", 2, 12);
        cycle(checks, "a", 1, 12);

        assertThat(checks.violations()).isEqualTo(1);
    }

    @Test
    void holdsOneAfterTheOtherAreReuseNotContention() {
        HoldChecks checks = new HoldChecks(true);
        cycle(checks, "a", 1, 10);
        cycle(checks, "a", 2, 11);
        cycle(checks, "b", 1, 12);

        assertThat(checks.violations()).isZero();
        assertThat(checks.sharing()).isEqualTo(new CaseResult.Sharing(3, 0, 1, 2));
    }

    private static void cycle(HoldChecks checks, String key, int thread, long token) {
        HoldChecks.Resource resource = checks.arriving(key);
        checks.acquired(resource, thread, token);
        checks.releasing(resource, thread);
        checks.left(resource);
    }
}
