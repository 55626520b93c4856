package dev.fencelock.zookeeper.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.test.model.ModelCheck;
import dev.fencelock.test.model.RunStats;
import dev.fencelock.test.zookeeper.ZooKeeperEnsemble;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * One standalone ZooKeeper server: a restart or a long pause takes the whole store away, so sessions
 * are lost to faults here far more often than on three members.
 */
class ZooKeeperOneMemberLockModelTest {

    @Test
    void scriptsWithFaultsNeverBreakTheModel() {
        try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.standalone();
                ZooKeeperLockSystem system = new ZooKeeperLockSystem(ensemble)) {
            RunStats stats = ModelCheck.check(system, ModelCheck.Settings.of(500, 30, Duration.ofSeconds(15)));

            assertThat(stats.steps()).isPositive();
        }
    }
}
