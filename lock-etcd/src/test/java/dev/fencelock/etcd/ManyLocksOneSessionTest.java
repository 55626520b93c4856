package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.etcd.EtcdMember;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * 20,000 locks held by one client cost one lease and one keep-alive per TTL/3, not one per lock:
 * counted on the etcd side from its own gRPC metrics.
 */
class ManyLocksOneSessionTest {

    private static final int LOCKS = 20_000;

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    @Test
    void twentyThousandHeldLocksShareOneLeaseAndItsKeepAlives() throws Exception {
        EtcdMember member = etcd.cluster().member(0);
        EtcdLockBackend backend =
                EtcdLockBackend.builder().endpoints(etcd.endpoints()).build();
        try (LockClient client = LockClient.builder(backend).build()) {
            List<LockLease> leases = acquireAll(client);
            assertThat(leases).hasSize(LOCKS);
            assertThat(leases.stream().map(LockLease::leaseId).distinct()).hasSize(1);
            assertThat(backend.sessions()).hasSize(1);

            // Watch the keep-alive traffic for a while (the default 30 s TTL -> one round every 10 s).
            double before = keepAlivesReceived(member);
            long watchStart = System.nanoTime();
            Thread.sleep(12_000); // a measurement window, not a wait for a condition
            double during = keepAlivesReceived(member) - before;
            double seconds = (System.nanoTime() - watchStart) / 1e9;

            assertThat(leases).allMatch(LockLease::isValid);
            // One keep-alive round every 10 s for the one session, whatever the number of locks. etcd
            // counts up to two messages per round (jetcd's one-shot keep-alive); allow a round of
            // timing slack at each edge. 20,000 per-lock leases would be 2,000 per second.
            double rounds = Math.ceil(seconds / 10.0);
            assertThat(during).as("keep-alive messages in %.1f s", seconds).isLessThanOrEqualTo(2 * (rounds + 2));
            // The locks stayed valid through the window, so the session's keep-alives did their job.
            assertThat(backend.sessions().values())
                    .singleElement()
                    .satisfies(session -> assertThat(session.validFor()).isPositive());
            System.out.printf(
                    "held=%d sessions=%d keepAliveMessages=%.0f in %.1fs%n",
                    LOCKS, backend.sessions().size(), during, seconds);
        }
    }

    private static List<LockLease> acquireAll(LockClient client) throws Exception {
        Semaphore inFlight = new Semaphore(256);
        List<CompletableFuture<LockLease>> futures = new ArrayList<>(LOCKS);
        long started = System.nanoTime();
        for (int i = 0; i < LOCKS; i++) {
            inFlight.acquire();
            CompletableFuture<LockLease> future = client.acquireAsync(LockRequest.builder("resource-" + i)
                    .waitTimeout(Duration.ofSeconds(30))
                    .build());
            future.whenComplete((lease, failure) -> inFlight.release());
            futures.add(future);
        }
        List<LockLease> leases = new ArrayList<>(LOCKS);
        for (CompletableFuture<LockLease> future : futures) {
            leases.add(future.get(60, TimeUnit.SECONDS));
        }
        System.out.printf("acquired %d locks in %.1fs%n", LOCKS, (System.nanoTime() - started) / 1e9);
        return leases;
    }

    private static double keepAlivesReceived(EtcdMember member) {
        return member.metric("grpc_server_msg_received_total", "grpc_method=\"LeaseKeepAlive\"");
    }
}
