package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.spi.BackendEventListener;
import dev.fencelock.spi.StoreCapacity;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the backend reads of etcd's capacity, against a real member: the database's size against the
 * configured quota, the history kept since the last compaction (found by reads at old revisions),
 * and when a compaction was first seen. Compactions are made here with etcd's own Compact call, as
 * an operator's or etcd's auto-compaction would.
 */
class StoreCapacityProbeTest {

    private static final long QUOTA = 64L * 1024 * 1024;

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private final List<StoreCapacity> reported = new CopyOnWriteArrayList<>();

    private EtcdLockBackend backend;

    private Client client;

    @BeforeEach
    void connect() {
        this.backend = EtcdLockBackend.builder()
                .endpoints(etcd.endpoints())
                .namespace("/capacity-" + System.nanoTime())
                .quotaBackendBytes(QUOTA)
                // Only the checks this test asks for, so each one's findings can be told apart.
                .capacityCheckInterval(Duration.ZERO)
                .eventListener(new BackendEventListener() {
                    @Override
                    public void capacityChecked(StoreCapacity capacity) {
                        StoreCapacityProbeTest.this.reported.add(capacity);
                    }
                })
                .build();
        this.client = Client.builder()
                .endpoints(etcd.endpoints().toArray(String[]::new))
                .build();
    }

    @AfterEach
    void close() {
        this.backend.close();
        this.client.close();
    }

    @Test
    void healthReportsTheDatabaseAgainstTheQuotaAndTheHistorySinceTheLastCompaction() throws Exception {
        long before = write(20);
        StoreCapacity first = capacity();
        assertThat(first.quotaBytes()).isEqualTo(QUOTA);
        assertThat(first.sizeBytes()).isPositive().isLessThan(QUOTA);
        assertThat(first.sizeInUseBytes()).isPositive().isLessThanOrEqualTo(first.sizeBytes());
        assertThat(first.revision()).isGreaterThanOrEqualTo(before);
        assertThat(first.alarms()).isEmpty();
        // A new member, never compacted: all of its history is kept.
        assertThat(first.compactedRevision()).isZero();
        assertThat(first.revisionsSinceCompaction()).isEqualTo(first.revision());
        assertThat(first.compactionSeen()).isFalse();
        assertThat(this.reported).last().isEqualTo(first);

        long compactTo = write(50) - 20;
        this.client.getKVClient().compact(compactTo).get(10, TimeUnit.SECONDS);
        long head = write(5);
        StoreCapacity afterCompaction = capacity();
        assertThat(afterCompaction.compactedRevision()).isEqualTo(compactTo);
        assertThat(afterCompaction.revision()).isGreaterThanOrEqualTo(head);
        assertThat(afterCompaction.revisionsSinceCompaction()).isEqualTo(afterCompaction.revision() - compactTo);
        assertThat(afterCompaction.compactionSeen()).isTrue();

        // A second compaction is found by a search above the first one.
        long compactAgain = head - 1;
        this.client.getKVClient().compact(compactAgain).get(10, TimeUnit.SECONDS);
        StoreCapacity afterSecond = capacity();
        assertThat(afterSecond.compactedRevision()).isEqualTo(compactAgain);
        assertThat(afterSecond.compactionSeen()).isTrue();

        // Nothing compacted since: the same revision, and its age counts on from when it was seen.
        write(3);
        StoreCapacity unchanged = capacity();
        assertThat(unchanged.compactedRevision()).isEqualTo(compactAgain);
        assertThat(unchanged.sinceCompaction()).isGreaterThanOrEqualTo(afterSecond.sinceCompaction());
        assertThat(unchanged.revisionsSinceCompaction()).isGreaterThan(afterSecond.revisionsSinceCompaction());
    }

    private StoreCapacity capacity() throws Exception {
        StoreCapacity capacity = this.backend
                .health(Duration.ofSeconds(10))
                .get(20, TimeUnit.SECONDS)
                .capacity();
        assertThat(capacity).as("the health check's capacity").isNotNull();
        return capacity;
    }

    /** Writes {@code count} small keys; returns the revision of the last write. */
    private long write(int count) throws Exception {
        long revision = 0;
        for (int i = 0; i < count; i++) {
            revision = this.client
                    .getKVClient()
                    .put(bytes("/capacity-filler/" + i), bytes("value-" + i))
                    .get(10, TimeUnit.SECONDS)
                    .getHeader()
                    .getRevision();
        }
        return revision;
    }

    private static ByteSequence bytes(String value) {
        return ByteSequence.from(value, StandardCharsets.UTF_8);
    }
}
