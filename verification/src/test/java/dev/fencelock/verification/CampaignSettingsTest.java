package dev.fencelock.verification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.fencelock.verification.fault.FaultKind;
import dev.fencelock.verification.worker.Guard;
import dev.fencelock.verification.worker.Store;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class CampaignSettingsTest {

    private static final Path OUT = Path.of("target", "unused");

    @Test
    void aRunOnZooKeeperRefusesAFaultThatHasNoMeaningThere() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> CampaignSettings.of(
                        "fenced-minority-partition",
                        Store.ZOOKEEPER,
                        Guard.CLIENT,
                        List.of(FaultKind.MINORITY_PARTITION),
                        OUT))
                .withMessageContaining("MINORITY_PARTITION")
                .withMessageContaining("no meaning on zookeeper");
    }

    @Test
    void aRunOnEtcdRefusesSessionExpiry() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> CampaignSettings.of(
                        "fenced-session-expiry", Guard.CLIENT, List.of(FaultKind.SESSION_EXPIRY), OUT))
                .withMessageContaining("no meaning on etcd");
    }

    @Test
    void eachStoreRunsItsOwnFaults() {
        assertThat(FaultKind.on(Store.ETCD))
                .containsExactly(
                        FaultKind.LEADER_KILL,
                        FaultKind.MAJORITY_PAUSE,
                        FaultKind.MINORITY_PARTITION,
                        FaultKind.COMPACT_DEFRAG,
                        FaultKind.CLIENT_CUT,
                        FaultKind.ZOMBIE,
                        FaultKind.LOST_RESPONSES,
                        FaultKind.FORCE_RELEASE);
        assertThat(FaultKind.on(Store.ZOOKEEPER))
                .containsExactly(
                        FaultKind.LEADER_KILL,
                        FaultKind.MAJORITY_PAUSE,
                        FaultKind.CLIENT_CUT,
                        FaultKind.ZOMBIE,
                        FaultKind.LOST_RESPONSES,
                        FaultKind.FORCE_RELEASE,
                        FaultKind.SESSION_EXPIRY);
    }

    @Test
    void onlyEtcdRunsNeedTheGrpcHop() {
        assertThat(CampaignSettings.of("mixed", Guard.CLIENT, FaultKind.on(Store.ETCD), OUT)
                        .mixing()
                        .needsGrpcHop())
                .isTrue();
        assertThat(CampaignSettings.of("mixed", Store.ZOOKEEPER, Guard.CLIENT, FaultKind.on(Store.ZOOKEEPER), OUT)
                        .mixing()
                        .needsGrpcHop())
                .isFalse();
    }
}
