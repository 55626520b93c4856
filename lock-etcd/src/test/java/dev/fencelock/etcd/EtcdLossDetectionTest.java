package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.fault.GrpcFaultProxy;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A holder learns that its key is gone within one watch event, without calling {@code renew()}: an
 * operator's delete, another instance's force-release, a revoked lease. Until it knows, it would
 * keep writing as if it held the lock (a fencing-aware store still refuses it, but only once the
 * next holder wrote).
 */
class EtcdLossDetectionTest {

    /**
     * One watch event, with a loaded machine's slack. Nothing else can notice this soon: the first
     * keep-alive of the holder's 60 s lease is 20 s away, and the orphan sweep a minute.
     */
    private static final Duration NOTICED_WITHIN = Duration.ofSeconds(5);

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private LockClient holder;

    private Client operator;

    @BeforeEach
    void connect() {
        this.holder = LockClient.builder(
                        EtcdLockBackend.builder().endpoints(etcd.endpoints()).build())
                .defaultLeaseTtl(Duration.ofSeconds(60))
                .build();
        this.operator = Client.builder()
                .endpoints(etcd.endpoints().toArray(String[]::new))
                .build();
    }

    @AfterEach
    void close() {
        this.holder.close();
        this.operator.close();
    }

    @Test
    void aKeyDeletedByAnOperatorIsLost() throws Exception {
        LockLease lease = this.holder.acquire(LockRequest.of("deleted-by-operator"));
        CompletableFuture<LockLostException> lost = lostOf(lease);
        String prefix = ((EtcdLockBackend) this.holder.backend()).resourcePrefix("deleted-by-operator");

        this.operator
                .getKVClient()
                .delete(
                        bytes(prefix),
                        io.etcd.jetcd.options.DeleteOption.builder()
                                .isPrefix(true)
                                .build())
                .get(30, TimeUnit.SECONDS);

        assertThat(lost.get(NOTICED_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isNotNull();
        assertThat(lease.isValid()).isFalse();
    }

    @Test
    void aLockForceReleasedByAnotherInstanceIsLost() throws Exception {
        LockLease lease = this.holder.acquire(LockRequest.of("force-released"));
        CompletableFuture<LockLostException> lost = lostOf(lease);
        try (LockClient other = LockClient.builder(
                        EtcdLockBackend.builder().endpoints(etcd.endpoints()).build())
                .build()) {
            other.administration()
                    .orElseThrow()
                    .forceRelease(ResourceName.of("force-released", 255))
                    .get(30, TimeUnit.SECONDS);

            assertThat(lost.get(NOTICED_WITHIN.toMillis(), TimeUnit.MILLISECONDS))
                    .hasMessageContaining("force-released");
            assertThat(lease.isValid()).isFalse();
        }
    }

    @Test
    void aLockWhoseLeaseWasRevokedIsLost() throws Exception {
        LockLease lease = this.holder.acquire(LockRequest.of("revoked"));
        CompletableFuture<LockLostException> lost = lostOf(lease);

        this.operator.getLeaseClient().revoke(lease.leaseId()).get(30, TimeUnit.SECONDS);

        assertThat(lost.get(NOTICED_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isNotNull();
        assertThat(lease.isValid()).isFalse();
    }

    @Test
    void aDeletionWhileTheWatchStreamWasDownIsStillSeen() throws Exception {
        try (GrpcFaultProxy proxy =
                        GrpcFaultProxy.forEndpoint(etcd.cluster().member(0).clientEndpoint());
                LockClient viaProxy = LockClient.builder(EtcdLockBackend.builder()
                                .endpoints(proxy.endpoint())
                                .build())
                        .defaultLeaseTtl(Duration.ofSeconds(60))
                        .build()) {
            LockLease lease = viaProxy.acquire(LockRequest.of("watch-ended"));
            CompletableFuture<LockLostException> lost = lostOf(lease);
            await().atMost(Duration.ofSeconds(30)).until(() -> proxy.endCalls("etcdserverpb.Watch/Watch") > 0);
            String prefix = ((EtcdLockBackend) viaProxy.backend()).resourcePrefix("watch-ended");

            this.operator
                    .getKVClient()
                    .delete(
                            bytes(prefix),
                            io.etcd.jetcd.options.DeleteOption.builder()
                                    .isPrefix(true)
                                    .build())
                    .get(30, TimeUnit.SECONDS);

            assertThat(lost.get(NOTICED_WITHIN.multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS))
                    .isNotNull();
        }
    }

    @Test
    void otherKeysGoingAwayLoseNothing() throws Exception {
        LockLease kept = this.holder.acquire(LockRequest.of("kept"));
        CompletableFuture<LockLostException> lost = lostOf(kept);
        this.holder.acquire(LockRequest.of("released")).release();
        try (LockClient other = LockClient.builder(
                        EtcdLockBackend.builder().endpoints(etcd.endpoints()).build())
                .build()) {
            other.acquire(LockRequest.of("kept-elsewhere")).release();
        }
        // The same request id again: its earlier key's deletion must not count against the new one.
        this.holder
                .acquire(LockRequest.builder("again").requestId("same").build())
                .release();
        LockLease again = this.holder.acquire(
                LockRequest.builder("again").requestId("same").build());

        // A window as long as a true loss may take to be noticed; a slow machine can only shorten what it sees.
        await().during(NOTICED_WITHIN)
                .atMost(NOTICED_WITHIN.plusSeconds(30))
                .until(() -> kept.isValid() && again.isValid());
        assertThat(lost).isNotDone();
        again.release();
        kept.release();
    }

    private static CompletableFuture<LockLostException> lostOf(LockLease lease) {
        CompletableFuture<LockLostException> lost = new CompletableFuture<>();
        lease.onLost(lost::complete);
        return lost;
    }

    private static ByteSequence bytes(String value) {
        return ByteSequence.from(value, StandardCharsets.UTF_8);
    }
}
