package dev.fencelock.test.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.test.model.LockModel.AcquireOutcome;
import dev.fencelock.test.model.LockModel.Acquisition;
import dev.fencelock.test.model.LockModel.State;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The model is the oracle of every check, so what it predicts is checked first. */
class LockModelTest {

    private final LockModel model = new LockModel(List.of("r0", "r1"));

    @Test
    void releasingTheHolderHandsTheLockToTheOldestWaiter() {
        Acquisition holder = grant(0, "r0", null, 10);
        Acquisition first = this.model.acquire(1, "r0", null).acquisition();
        Acquisition second = this.model.acquire(2, "r0", null).acquisition();

        assertThat(this.model.release(holder)).isTrue();

        assertThat(first.state).isEqualTo(State.HELD);
        assertThat(second.state).isEqualTo(State.WAITING);
        assertThat(this.model.keysOf("r0")).containsExactly(first, second);
    }

    @Test
    void aTokenMustGrowAcrossHoldersAndStayAcrossHoldsOfOneAcquisition() {
        Acquisition holder = grant(0, "r0", "a1", 10);
        Acquisition next = this.model.acquire(1, "r0", null).acquisition();
        this.model.release(holder);

        assertThat(this.model.granted(next, 9)).contains("already had token 10");
        assertThat(this.model.granted(next, 11)).isNull();
        assertThat(this.model.granted(next, 12)).contains("not the acquisition's token");
    }

    @Test
    void aRetryWithTheSameIdReentersAHeldLockAndJoinsAWaitingOne() {
        Acquisition held = grant(0, "r0", "a1", 10);
        LockModel.Acquire reentry = this.model.acquire(0, "r0", "a1");
        Acquisition waiting = this.model.acquire(1, "r0", "a2").acquisition();
        LockModel.Acquire joined = this.model.acquire(1, "r0", "a2");

        assertThat(reentry.outcome()).isEqualTo(AcquireOutcome.REENTERED);
        assertThat(reentry.acquisition()).isSameAs(held);
        assertThat(joined.outcome()).isEqualTo(AcquireOutcome.JOINED);
        assertThat(this.model.keysOf("r0")).containsExactly(held, waiting);

        this.model.release(held);
        assertThat(this.model.release(held)).isTrue(); // the second hold was the last
        assertThat(waiting.state).isEqualTo(State.HELD);
        assertThat(waiting.openHolds).isEqualTo(2); // both callers get the lock
    }

    @Test
    void anIdInUseByAnotherClientIsRefusedAndChangesNothing() {
        Acquisition held = grant(0, "r0", "a1", 10);

        LockModel.Acquire refused = this.model.acquire(1, "r0", "a1");

        assertThat(refused.outcome()).isEqualTo(AcquireOutcome.REFUSED_IN_USE);
        assertThat(this.model.keysOf("r0")).containsExactly(held);
    }

    @Test
    void anIdOfAnEndedAcquisitionStartsANewOne() {
        Acquisition first = grant(0, "r0", "a1", 10);
        this.model.release(first);

        LockModel.Acquire again = this.model.acquire(0, "r0", "a1");

        assertThat(again.outcome()).isEqualTo(AcquireOutcome.GRANTED);
        assertThat(again.acquisition()).isNotSameAs(first);
    }

    @Test
    void aLostSessionWithdrawsItsWaitersBeforeItsLocksAreHandedOn() {
        Acquisition held = grant(0, "r0", null, 10);
        Acquisition ownWaiter = this.model.acquire(0, "r0", null).acquisition();
        Acquisition otherWaiter = this.model.acquire(1, "r0", null).acquisition();

        this.model.sessionsLost(Set.of(0), "expiry");

        assertThat(held.state).isEqualTo(State.LOST);
        assertThat(ownWaiter.state).isEqualTo(State.WITHDRAWN);
        assertThat(otherWaiter.state).isEqualTo(State.HELD);
        assertThat(this.model.release(held)).isFalse();
    }

    @Test
    void sessionsLostInOneFaultHandNothingToEachOther() {
        Acquisition first = grant(0, "r0", null, 10);
        Acquisition second = this.model.acquire(1, "r0", null).acquisition();
        Acquisition third = this.model.acquire(2, "r0", null).acquisition();

        this.model.sessionsLost(Set.of(0, 1), "fault");

        assertThat(first.state).isEqualTo(State.LOST);
        assertThat(second.state).isEqualTo(State.WITHDRAWN);
        assertThat(third.state).isEqualTo(State.HELD);
    }

    @Test
    void forceReleaseLosesTheHolderAndHandsOver() {
        Acquisition held = grant(0, "r1", null, 10);
        Acquisition waiter = this.model.acquire(1, "r1", null).acquisition();

        assertThat(this.model.forceRelease("r1")).isSameAs(held);
        assertThat(this.model.forceRelease("r0")).isNull();

        assertThat(held.state).isEqualTo(State.LOST);
        assertThat(waiter.state).isEqualTo(State.HELD);
    }

    @Test
    void cancellingAWaiterWithdrawsItsKeyForEveryCallerWaitingOnIt() {
        grant(0, "r0", null, 10);
        Acquisition waiter = this.model.acquire(1, "r0", "a1").acquisition();
        this.model.acquire(1, "r0", "a1");

        this.model.cancel(waiter);

        assertThat(waiter.state).isEqualTo(State.WITHDRAWN);
        assertThat(this.model.keysOf("r0")).hasSize(1);
    }

    private Acquisition grant(int client, String resource, String requestId, long token) {
        LockModel.Acquire acquire = this.model.acquire(client, resource, requestId);
        assertThat(acquire.outcome()).isEqualTo(AcquireOutcome.GRANTED);
        assertThat(this.model.granted(acquire.acquisition(), token)).isNull();
        return acquire.acquisition();
    }
}
