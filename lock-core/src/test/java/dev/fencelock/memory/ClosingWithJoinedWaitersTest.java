package dev.fencelock.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Closing a client ends every acquisition it waits for, also one that a retry with the same id joined. */
class ClosingWithJoinedWaitersTest {

    @Test
    void closingTheHolderThenTheWaiterEndsBothOfTheWaitersAcquisitions() {
        InMemoryLockStore store = new InMemoryLockStore();
        LockClient holder =
                LockClient.builder(InMemoryLockBackend.sharing(store)).build();
        LockClient waiter =
                LockClient.builder(InMemoryLockBackend.sharing(store)).build();
        holder.acquire(LockRequest.of("r0"));
        LockRequest request = LockRequest.builder("r0")
                .requestId("a1")
                .waitTimeout(Duration.ofMinutes(1))
                .build();
        CompletableFuture<LockLease> first = waiter.acquireAsync(request);
        CompletableFuture<LockLease> retry = waiter.acquireAsync(request);

        holder.close();
        waiter.close();

        assertThat(first)
                .succeedsWithin(Duration.ofSeconds(2))
                .satisfies(lease -> assertThat(lease.isValid()).isFalse());
        assertThat(retry)
                .succeedsWithin(Duration.ofSeconds(2))
                .satisfies(lease -> assertThat(lease.isValid()).isFalse());
        store.close();
    }

    @Test
    void closingEndsAWaitJoinedByARetryWithTheSameRequestId() {
        InMemoryLockStore store = new InMemoryLockStore();
        try (LockClient holder =
                LockClient.builder(InMemoryLockBackend.sharing(store)).build()) {
            LockClient waiter =
                    LockClient.builder(InMemoryLockBackend.sharing(store)).build();
            holder.acquire(LockRequest.of("r0"));
            LockRequest request = LockRequest.builder("r0")
                    .requestId("a1")
                    .waitTimeout(Duration.ofMinutes(1))
                    .build();
            CompletableFuture<LockLease> first = waiter.acquireAsync(request);
            CompletableFuture<LockLease> retry = waiter.acquireAsync(request);

            waiter.close();

            assertThat(first).failsWithin(Duration.ofSeconds(10));
            assertThat(retry).failsWithin(Duration.ofSeconds(10));
        }
    }
}
