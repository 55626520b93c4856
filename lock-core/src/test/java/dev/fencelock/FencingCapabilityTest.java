package dev.fencelock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockBackend;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** A backend says whether its tokens fence; its leases and their fences carry the answer. */
class FencingCapabilityTest {

    @Test
    void leasesOfAFencingStoreAreFencingAndSoAreTheirFences() {
        try (LockClient client = LockClient.builder(new InMemoryLockBackend()).build();
                LockLease lease = client.acquire(LockRequest.of("order:1"));
                FencingContext.Scope scope = FencingContext.open(lease)) {
            assertThat(lease.isFencing()).isTrue();
            assertThat(scope.fence().fencing()).isTrue();
        }
    }

    @Test
    void leasesOfAStoreWithoutFencingTokensSaySoAndTheirFencesCarryIt() {
        try (LockClient client = LockClient.builder(new NotFencing(new InMemoryLockBackend()))
                        .build();
                LockLease lease = client.acquire(LockRequest.of("order:1"));
                FencingContext.Scope scope = FencingContext.open(lease)) {
            assertThat(lease.isFencing()).isFalse();
            assertThat(lease.fencingToken()).isPositive();
            assertThat(lease.toString()).contains("not fencing");
            assertThat(scope.fence().fencing()).isFalse();
            assertThat(FencingContext.writeFence())
                    .map(FencingContext.Fence::fencing)
                    .contains(false);
        }
    }

    @Test
    void aFencePushedWithoutALeaseIsVouchedForByWhoPushedIt() {
        assertThat(new FencingContext.Fence("order:1", 7, null).fencing()).isTrue();
        assertThat(new FencingContext.Fence("order:1", 7, null, false).fencing())
                .isFalse();
    }

    /** The in-memory store, declaring what a Redis backend declares. */
    private record NotFencing(LockBackend delegate) implements LockBackend {

        @Override
        public CompletableFuture<BackendLock> acquire(AcquireCommand command) {
            return this.delegate.acquire(command);
        }

        @Override
        public CompletableFuture<Long> renew(BackendLock lock) {
            return this.delegate.renew(lock);
        }

        @Override
        public CompletableFuture<Boolean> release(BackendLock lock) {
            return this.delegate.release(lock);
        }

        @Override
        public boolean issuesFencingTokens() {
            return false;
        }

        @Override
        public String describe() {
            return "not fencing";
        }

        @Override
        public void close() {
            this.delegate.close();
        }
    }
}
