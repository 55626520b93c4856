package dev.fencelock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencelock.spi.AcquireCommand;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AcquireAllTest {

    private final ScriptedLockBackend backend = new ScriptedLockBackend();

    private final LockClient client =
            LockClient.builder(this.backend).callbackExecutor(Runnable::run).build();

    @AfterEach
    void closeClient() {
        this.client.close();
    }

    @Test
    void locksAreTakenOneAfterAnotherInResourceOrderUnderOneDeadline() throws Exception {
        CompletableFuture<MultiLockLease> all = CompletableFuture.supplyAsync(() -> this.client.acquireAll(List.of(
                request("account:7", Duration.ofSeconds(30)),
                request("account:3", Duration.ofSeconds(4)),
                request("account:5", Duration.ofSeconds(30)))));
        for (int i = 0; i < 3; i++) {
            int taken = i;
            // The next lock is asked for only once the one before it is held.
            await().atMost(Duration.ofSeconds(10)).until(() -> this.backend.acquires.size() == taken + 1);
            assertThat(this.backend.acquires).hasSize(taken + 1);
            this.backend.grant(taken);
        }
        MultiLockLease locks = all.get(10, TimeUnit.SECONDS);

        List<AcquireCommand> commands = this.backend.acquires.stream()
                .map(ScriptedLockBackend.PendingAcquire::command)
                .toList();
        assertThat(commands)
                .extracting(command -> command.resource().value())
                .containsExactly("account:3", "account:5", "account:7");
        // One deadline, the shortest wait timeout (4 s) from the call, for every lock.
        assertThat(commands)
                .extracting(AcquireCommand::deadlineNanos)
                .containsOnly(commands.get(0).deadlineNanos());
        assertThat(commands.get(0).remainingNanos()).isLessThanOrEqualTo(TimeUnit.SECONDS.toNanos(4));
        assertThat(commands).allMatch(AcquireCommand::waitForRelease);

        assertThat(locks.leases())
                .extracting(LockLease::resource)
                .containsExactly("account:3", "account:5", "account:7");
        assertThat(locks.lease("account:5")).isPresent();
        assertThat(locks.isValid()).isTrue();
        try (FencingContext.Scope fences = FencingContext.openAll(locks)) {
            assertThat(FencingContext.all())
                    .extracting(FencingContext.Fence::resource)
                    .containsExactly("account:3", "account:5", "account:7");
            assertThat(fences.fence().resource()).isEqualTo("account:7");
        }
        assertThat(FencingContext.all()).isEmpty();

        assertThat(locks.release()).isTrue();
        assertThat(this.backend.released)
                .extracting(lock -> lock.resource().value())
                .containsExactly("account:7", "account:5", "account:3");
    }

    @Test
    void whenOneLockCannotBeHadTheOnesTakenAreReleasedFirst() {
        CompletableFuture<MultiLockLease> all = CompletableFuture.supplyAsync(
                () -> this.client.acquireAll(List.of(LockRequest.of("c"), LockRequest.of("a"), LockRequest.of("b"))));
        await().atMost(Duration.ofSeconds(10)).until(() -> this.backend.acquires.size() == 1);
        this.backend.grant(0);
        await().atMost(Duration.ofSeconds(10)).until(() -> this.backend.acquires.size() == 2);
        this.backend.grant(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> this.backend.acquires.size() == 3);
        this.backend
                .acquires
                .get(2)
                .future()
                .completeExceptionally(new LockAcquisitionTimeoutException("Lock 'c' stayed busy"));

        assertThatThrownBy(all::join).hasCauseInstanceOf(LockAcquisitionTimeoutException.class);
        assertThat(this.backend.released)
                .extracting(lock -> lock.resource().value())
                .containsExactly("b", "a");
        assertThat(this.client.heldLocks()).isEmpty();
    }

    @Test
    void aResourceNamedTwiceOrNoneAtAllIsRefusedBeforeAnythingIsAsked() {
        // Two spellings of one name are one resource after normalisation.
        assertThatThrownBy(() -> this.client.acquireAll(
                        List.of(LockRequest.of("caf\u00e9"), LockRequest.of("b"), LockRequest.of("cafe\u0301"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("twice");
        assertThatThrownBy(() -> this.client.acquireAll(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThat(this.backend.acquires).isEmpty();
    }

    @Test
    void aZeroWaitTimeoutMakesEveryLockATryLock() {
        CompletableFuture<MultiLockLease> all = CompletableFuture.supplyAsync(() ->
                this.client.acquireAll(List.of(request("a", Duration.ZERO), request("b", Duration.ofSeconds(10)))));
        await().atMost(Duration.ofSeconds(10)).until(() -> this.backend.acquires.size() == 1);
        this.backend.grant(0);
        await().atMost(Duration.ofSeconds(10)).until(() -> this.backend.acquires.size() == 2);
        this.backend.grant(1);
        assertThat(all.join().leases()).hasSize(2);
        assertThat(this.backend.acquires).noneMatch(pending -> pending.command().waitForRelease());
    }

    private static LockRequest request(String resource, Duration wait) {
        return LockRequest.builder(resource).waitTimeout(wait).build();
    }
}
