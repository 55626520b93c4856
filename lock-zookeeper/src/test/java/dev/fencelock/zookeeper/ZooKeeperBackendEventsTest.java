package dev.fencelock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.spi.BackendEventListener;
import dev.fencelock.spi.WriteOperation;
import dev.fencelock.test.zookeeper.ZooKeeperEnsembleExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What the ZooKeeper backend tells its event listener, from which the fencelock.* meters are made. */
class ZooKeeperBackendEventsTest {

    @RegisterExtension
    static final ZooKeeperEnsembleExtension zookeeper = ZooKeeperEnsembleExtension.members(1);

    @Test
    void writesAreTimedAndASessionLostWithItsLocksIsCounted() {
        List<WriteOperation> writes = new CopyOnWriteArrayList<>();
        AtomicInteger expired = new AtomicInteger();
        BackendEventListener listener = new BackendEventListener() {
            @Override
            public void committed(WriteOperation operation, Duration took) {
                writes.add(operation);
            }

            @Override
            public void leaseExpired(int locks) {
                expired.addAndGet(locks);
            }
        };
        ZooKeeperLockBackend backend = ZooKeeperLockBackend.builder()
                .connectString(zookeeper.connectString())
                .eventListener(listener)
                .build();
        try (LockClient client = LockClient.builder(backend).build()) {
            try (LockLease lease = client.acquire(LockRequest.of("events:a"))) {
                assertThat(lease.isValid()).isTrue();
            }
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> writes.contains(WriteOperation.ACQUIRE) && writes.contains(WriteOperation.RELEASE));

            LockLease first = client.acquire(LockRequest.builder("events:b")
                    .leaseTtl(Duration.ofSeconds(2))
                    .build());
            LockLease second = client.acquire(LockRequest.builder("events:c")
                    .leaseTtl(Duration.ofSeconds(2))
                    .build());
            backend.pauseRenewals();
            // Both locks live on the one 2 s session; it is lost at its local deadline, with both.
            await().atMost(Duration.ofSeconds(30)).until(() -> expired.get() == 2);
            assertThat(first.isValid()).isFalse();
            assertThat(second.isValid()).isFalse();
        }
    }
}
