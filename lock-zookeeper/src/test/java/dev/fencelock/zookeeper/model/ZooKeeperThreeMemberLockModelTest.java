package dev.fencelock.zookeeper.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.test.model.ModelCheck;
import dev.fencelock.test.model.RunStats;
import dev.fencelock.test.zookeeper.ZooKeeperEnsemble;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Three ZooKeeper members: a paused leader is replaced, a restarted member rejoins, the quorum stays. */
class ZooKeeperThreeMemberLockModelTest {

    @Test
    void scriptsWithFaultsNeverBreakTheModel() {
        try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.start(3);
                ZooKeeperLockSystem system = new ZooKeeperLockSystem(ensemble)) {
            RunStats stats = ModelCheck.check(system, ModelCheck.Settings.of(500, 30, Duration.ofSeconds(20)));

            assertThat(stats.steps()).isPositive();
        }
    }
}
