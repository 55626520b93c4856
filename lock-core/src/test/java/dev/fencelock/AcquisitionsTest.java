package dev.fencelock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.LockKind;
import java.util.concurrent.CompletableFuture;
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
        assertThat(this.acquisitions.reenter(RESOURCE, "req-2", LockKind.EXCLUSIVE))
                .isNull();
        assertThat(this.acquisitions.reenter(RESOURCE, "req-1", LockKind.EXCLUSIVE))
                .isSameAs(acquisition);
        assertThat(acquisition.holds()).isEqualTo(2);
        lock.markLost(new LockLostException("gone"));
        assertThat(this.acquisitions.reenter(RESOURCE, "req-1", LockKind.EXCLUSIVE))
                .isNull();
        assertThat(acquisition.holds()).isEqualTo(2);
        assertThat(this.acquisitions.held()).isEmpty();
        assertThat(this.acquisitions.heldCount()).isZero();
    }

    @Test
    void theLockOfAnEmptiedAcquisitionIsNeverHeldAgain() {
        ScriptedLockBackend.ScriptedLock lock = lock("req-1");
        Acquisition acquisition = this.acquisitions.register(lock, "orders");
        this.acquisitions.reenter(RESOURCE, "req-1", LockKind.EXCLUSIVE);
        assertThat(this.acquisitions.dropHold(acquisition)).isFalse();
        assertThat(this.acquisitions.heldCount()).isEqualTo(1);
        assertThat(this.acquisitions.dropHold(acquisition)).isTrue();
        assertThat(this.acquisitions.heldCount()).isZero();
        assertThat(this.acquisitions.held()).isEmpty();
        assertThat(acquisition.addHold()).isFalse();
        assertThat(this.acquisitions.reenter(RESOURCE, "req-1", LockKind.EXCLUSIVE))
                .isNull();

        // Its release may end the lock at any moment: a grant of that lock is refused, before the
        // backend was told to release it and after.
        CompletableFuture<Void> handedOver = this.acquisitions.releaseHandedOver(lock);
        assertThat(this.acquisitions.register(lock, "orders")).isNull();
        assertThat(handedOver).isNotDone();
        lock.markReleased();
        this.acquisitions.forgetReleased(acquisition);
        assertThat(handedOver).isCompleted();
        assertThat(this.acquisitions.register(lock, "orders")).isNull();

        Acquisition fresh = this.acquisitions.register(lock("req-1"), "orders");
        assertThat(fresh).isNotNull().isNotSameAs(acquisition);
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
        assertThat(this.acquisitions.reenter(RESOURCE, "req-1", LockKind.EXCLUSIVE))
                .isSameAs(replacement);
    }

    @Test
    void aWriterReentersAsAReaderButAReaderCannotUpgradeToAWriter() {
        Acquisition writer = this.acquisitions.register(lock("writer", LockKind.EXCLUSIVE), "orders");
        assertThat(this.acquisitions.reenter(RESOURCE, "writer", LockKind.SHARED))
                .isSameAs(writer);
        assertThat(writer.holds()).isEqualTo(2);

        Acquisition reader = this.acquisitions.register(lock("reader", LockKind.SHARED), "orders");
        assertThatThrownBy(() -> this.acquisitions.reenter(RESOURCE, "reader", LockKind.EXCLUSIVE))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("cannot upgrade");
        assertThat(reader.holds()).isEqualTo(1);
    }

    @Test
    void aPermitReentersOnlyWithTheSameNumberOfPermits() {
        Acquisition permit = this.acquisitions.register(lock("permit", LockKind.permits(3)), "reports");
        assertThat(this.acquisitions.reenter(RESOURCE, "permit", LockKind.permits(3)))
                .isSameAs(permit);
        assertThatThrownBy(() -> this.acquisitions.reenter(RESOURCE, "permit", LockKind.permits(4)))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("a semaphore of 3 permits");
        assertThatThrownBy(() -> this.acquisitions.reenter(RESOURCE, "permit", LockKind.EXCLUSIVE))
                .isInstanceOf(LockException.class);
    }

    private static ScriptedLockBackend.ScriptedLock lock(String requestId) {
        return lock(requestId, LockKind.EXCLUSIVE);
    }

    private static ScriptedLockBackend.ScriptedLock lock(String requestId, LockKind kind) {
        AcquireCommand command = new AcquireCommand(
                RESOURCE, requestId, 30, true, System.nanoTime() + TimeUnit.SECONDS.toNanos(10), false, kind);
        return new ScriptedLockBackend.ScriptedLock(command, 42);
    }
}
