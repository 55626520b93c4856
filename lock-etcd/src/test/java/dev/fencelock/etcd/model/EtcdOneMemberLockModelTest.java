package dev.fencelock.etcd.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.model.ModelCheck;
import dev.fencelock.test.model.RunStats;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One etcd member: a restart or a long pause takes the whole store away, so sessions are lost to
 * faults here far more often than on three members.
 */
class EtcdOneMemberLockModelTest {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    @Test
    void scriptsWithFaultsNeverBreakTheModel() {
        try (EtcdLockSystem system = new EtcdLockSystem(etcd.cluster())) {
            RunStats stats = ModelCheck.check(system, ModelCheck.Settings.of(500, 30, Duration.ofSeconds(15)));

            assertThat(stats.steps()).isPositive();
        }
    }
}
