package dev.fencelock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.spi.AcquireCommand;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AcquisitionsTest {

    private static final ResourceName RESOURCE = ResourceName.of("order:42", 255);

    private final Acquisitions acquisitions = new Acquisitions();

    @Test
    void aGrantedLockIsRegisteredOnceWithOneHoldPerRegistration() {
        ScriptedLockBackend.ScriptedLock lock = lock("req-1");
        Acquisition first = this.acquisitions.register(lock, "orders");
        Acquisition again = this.acquisitions.register(lock, "other-name");
        assertThat(again).isSameAs(first);
        assertThat(first.holds()).isEqualTo(2);
        assertThat(first.lockName()).isEqualTo("orders");
        assertThat(this.acquisitions.held()).singleElement().satisfies(held -> {
            assertThat(held.requestId()).isEqualTo("req-1");
            assertThat(held.holds()).isEqualTo(2);
            assertThat(held.lockName()).isEqualTo("orders");
        });
    }

    @Test
    void reentryAddsAHoldOnlyToAValidAcquisitionOfTheSameRequestId() {
        ScriptedLockBackend.ScriptedLock lock = lock("req-1");
        Acquisition acquisition = this.acquisitions.register(lock, "orders");
        assertThat(this.acquisitions.reenter(RESOURCE, "req-2")).isNull();
        assertThat(this.acquisitions.reenter(RESOURCE, "req-1")).isSameAs(acquisition);
        assertThat(acquisition.holds()).isEqualTo(2);
        lock.markLost(new LockLostException("gone"));
        assertThat(this.acquisitions.reenter(RESOURCE, "req-1")).isNull();
        assertThat(acquisition.holds()).isEqualTo(2);
        assertThat(this.acquisitions.held()).isEmpty();
        assertThat(this.acquisitions.heldCount()).isZero();
    }

    @Test
    void droppingTheLastHoldForgetsTheAcquisitionForGood() {
        ScriptedLockBackend.ScriptedLock lock = lock("req-1");
        Acquisition acquisition = this.acquisitions.register(lock, "orders");
        this.acquisitions.reenter(RESOURCE, "req-1");
        assertThat(this.acquisitions.dropHold(acquisition)).isFalse();
        assertThat(this.acquisitions.heldCount()).isEqualTo(1);
        assertThat(this.acquisitions.dropHold(acquisition)).isTrue();
        assertThat(this.acquisitions.heldCount()).isZero();
        // An emptied acquisition cannot be revived: the same lock registered again starts afresh.
        assertThat(acquisition.addHold()).isFalse();
        assertThat(this.acquisitions.reenter(RESOURCE, "req-1")).isNull();
        Acquisition fresh = this.acquisitions.register(lock, "orders");
        assertThat(fresh).isNotSameAs(acquisition);
        assertThat(fresh.holds()).isEqualTo(1);
    }

    @Test
    void aNewLockForTheSameRequestIdReplacesTheOldAcquisition() {
        Acquisition old = this.acquisitions.register(lock("req-1"), "orders");
        Acquisition replacement = this.acquisitions.register(lock("req-1"), "orders");
        assertThat(replacement).isNotSameAs(old);
        assertThat(this.acquisitions.heldCount()).isEqualTo(1);
        // The old acquisition's last release must not forget its replacement.
        assertThat(this.acquisitions.dropHold(old)).isTrue();
        assertThat(this.acquisitions.reenter(RESOURCE, "req-1")).isSameAs(replacement);
    }

    private static ScriptedLockBackend.ScriptedLock lock(String requestId) {
        AcquireCommand command = new AcquireCommand(
                RESOURCE, requestId, 30, true, System.nanoTime() + TimeUnit.SECONDS.toNanos(10), false);
        return new ScriptedLockBackend.ScriptedLock(command, 42);
    }
}
