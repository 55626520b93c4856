package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A lost session poisons nothing: when etcd has dropped one of a client's session leases before the
 * client noticed, the acquisitions on its other session that share a Txn with puts on the dead one
 * still succeed, and those on the dead one get a new session instead of failing.
 */
class EtcdSessionIsolationTest {

    private static final int ACQUISITIONS = 200;

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    @Test
    void acquisitionsSharingATxnWithPutsOnADeadLeaseDoNotFailWithThem() throws Exception {
        try (LockClient client = LockClient.builder(EtcdLockBackend.builder()
                                .endpoints(etcd.endpoints())
                                .build())
                        .build();
                Client operator = Client.builder()
                        .endpoints(etcd.endpoints().toArray(String[]::new))
                        .build()) {
            LockLease onDoomed = client.acquire(request("warm-doomed", 30));
            client.acquire(request("warm-live", 20)).release();
            onDoomed.release();
            // Behind the client's back: its next keep-alive of this lease is 10 s away.
            operator.getLeaseClient().revoke(onDoomed.leaseId()).get(30, TimeUnit.SECONDS);

            List<CompletableFuture<LockLease>> acquisitions = new ArrayList<>();
            for (int i = 0; i < ACQUISITIONS; i++) {
                acquisitions.add(client.acquireAsync(request("lock-" + i, (i % 2 == 0) ? 30 : 20)));
            }
            List<Throwable> failures = new ArrayList<>();
            for (CompletableFuture<LockLease> acquisition : acquisitions) {
                try {
                    LockLease lease = acquisition.get(90, TimeUnit.SECONDS);
                    assertThat(lease.leaseId()).isNotEqualTo(onDoomed.leaseId());
                    lease.release();
                } catch (java.util.concurrent.ExecutionException ex) {
                    failures.add(ex.getCause());
                }
            }
            assertThat(failures).isEmpty();
        }
    }

    private static LockRequest request(String resource, int ttlSeconds) {
        return LockRequest.builder(resource)
                .leaseTtl(Duration.ofSeconds(ttlSeconds))
                .waitTimeout(Duration.ofSeconds(60)) // a give-up time: every acquisition here must succeed
                .build();
    }
}
