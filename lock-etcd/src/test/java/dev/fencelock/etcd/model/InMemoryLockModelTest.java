package dev.fencelock.etcd.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.test.model.InMemoryLockSystem;
import dev.fencelock.test.model.ModelCheck;
import dev.fencelock.test.model.RunStats;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The in-memory backend against the model: the same semantics as etcd, so the same scripts. */
class InMemoryLockModelTest {

    @Test
    void scriptsOfThreeClientsNeverBreakTheModel() {
        RunStats stats =
                ModelCheck.check(new InMemoryLockSystem(), ModelCheck.Settings.of(500, 30, Duration.ofSeconds(15)));

        assertThat(stats.steps()).isPositive();
    }
}
