package dev.fencelock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.memory.InMemoryLockBackend;
import org.junit.jupiter.api.Test;

/** docs/testing.md, "Unit tests without etcd"; also runs as a test. */
class InMemoryLocksExampleTest {

    @Test
    void tokensGrowEachTimeTheLockChangesHands() {
        try (LockClient locks = LockClient.builder(new InMemoryLockBackend()).build()) {
            long first;
            try (LockLease lease = locks.acquire(LockRequest.of("stock:apple"))) {
                first = lease.fencingToken();
            }
            try (LockLease lease = locks.acquire(LockRequest.of("stock:apple"))) {
                assertThat(lease.fencingToken()).isGreaterThan(first);
            }
        }
    }
}
