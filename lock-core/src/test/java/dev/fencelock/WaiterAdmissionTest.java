package dev.fencelock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class WaiterAdmissionTest {

    private static final ResourceName HOT = ResourceName.of("hot", 255);

    private static final ResourceName COLD = ResourceName.of("cold", 255);

    private final WaiterAdmission admission = new WaiterAdmission(2);

    @Test
    void admitsUpToTheLimitPerResourceAndRefusesTheNext() {
        this.admission.admit(HOT);
        this.admission.admit(HOT);
        assertThatThrownBy(() -> this.admission.admit(HOT))
                .isInstanceOf(LockQueueFullException.class)
                .hasMessageContaining("'hot'")
                .hasMessageContaining("already has 2 callers")
                .hasMessageContaining("max-waiters-per-resource");
        assertThat(this.admission.attemptsOn(HOT)).isEqualTo(2);
        assertThat(this.admission.waitingCount()).isEqualTo(2);
        // The limit is per resource: another one still gets in.
        this.admission.admit(COLD);
        assertThat(this.admission.waitingCount()).isEqualTo(3);
    }

    @Test
    void leavingFreesAPlaceAndTheLastOneLeavesNothingBehind() {
        WaiterAdmission.Ticket first = this.admission.admit(HOT);
        WaiterAdmission.Ticket second = this.admission.admit(HOT);
        first.leave();
        WaiterAdmission.Ticket third = this.admission.admit(HOT);
        second.leave();
        third.leave();
        assertThat(this.admission.attemptsOn(HOT)).isZero();
        assertThat(this.admission.waitingCount()).isZero();
        assertThat(this.admission.trackedResources()).isZero();
    }

    @Test
    void aRefusedAttemptCountsNowhere() {
        WaiterAdmission single = new WaiterAdmission(1);
        WaiterAdmission.Ticket only = single.admit(HOT);
        assertThatThrownBy(() -> single.admit(HOT)).isInstanceOf(LockQueueFullException.class);
        assertThat(single.waitingCount()).isEqualTo(1);
        only.leave();
        assertThat(single.waitingCount()).isZero();
        assertThat(single.trackedResources()).isZero();
    }
}
