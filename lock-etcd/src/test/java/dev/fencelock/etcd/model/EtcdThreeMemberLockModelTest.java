package dev.fencelock.etcd.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.model.ModelCheck;
import dev.fencelock.test.model.RunStats;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Three etcd members: a paused leader is replaced, a restarted member rejoins, the quorum stays. */
class EtcdThreeMemberLockModelTest {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(3);

    @Test
    void scriptsWithFaultsNeverBreakTheModel() {
        try (EtcdLockSystem system = new EtcdLockSystem(etcd.cluster())) {
            RunStats stats = ModelCheck.check(system, ModelCheck.Settings.of(500, 30, Duration.ofSeconds(20)));

            assertThat(stats.steps()).isPositive();
        }
    }
}
