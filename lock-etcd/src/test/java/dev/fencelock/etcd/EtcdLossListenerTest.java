package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.spi.BackendEventListener;
import dev.fencelock.spi.WriteOperation;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * User code never stalls keep-alives: when two sessions with 20,000 locks between them are lost at
 * once and the application's loss listeners block, a third session keeps its cadence and its lock.
 */
class EtcdLossListenerTest {

    private static final int LOCKS = 20_000;

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    @Test
    void blockingLossListenersLeaveTheKeepAlivesOfOtherSessionsAlone() throws Exception {
        CountDownLatch testOver = new CountDownLatch(1);
        AtomicInteger keepAlives = new AtomicInteger();
        EtcdLockBackend backend = EtcdLockBackend.builder()
                .endpoints(etcd.endpoints())
                .eventListener(new BackendEventListener() {
                    @Override
                    public void committed(WriteOperation operation, Duration took) {
                        if (operation == WriteOperation.RENEW) {
                            keepAlives.incrementAndGet();
                        }
                    }
                })
                .build();
        try (LockClient client = LockClient.builder(backend).build();
                Client operator = Client.builder()
                        .endpoints(etcd.endpoints().toArray(String[]::new))
                        .build()) {
            List<LockLease> doomed = acquireMany(client, "many", LOCKS, Duration.ofSeconds(20));
            LockLease other = client.acquire(LockRequest.builder("other-session")
                    .leaseTtl(Duration.ofSeconds(21))
                    .build());
            // A keep-alive round every 3.3 s, valid for 9 s: a loaded machine's late round does not lose it.
            LockLease survivor = client.acquire(LockRequest.builder("survivor")
                    .leaseTtl(Duration.ofSeconds(10))
                    .build());
            AtomicInteger notified = new AtomicInteger();
            for (LockLease lease : List.of(doomed.get(0), other)) {
                lease.onLost(cause -> {
                    notified.incrementAndGet();
                    try {
                        testOver.await(); // an application listener that blocks
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                });
            }

            operator.getLeaseClient().revoke(doomed.get(0).leaseId()).get(30, TimeUnit.SECONDS);
            operator.getLeaseClient().revoke(other.leaseId()).get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> doomed.stream().noneMatch(LockLease::isValid) && !other.isValid());
            await().atMost(Duration.ofSeconds(30)).until(() -> notified.get() > 0);

            // The listeners now block. The revoked sessions renew nothing: every keep-alive that etcd
            // confirms from here on is the survivor's. Two more rounds show that the cadence goes on.
            int before = keepAlives.get();
            await().atMost(Duration.ofSeconds(60)).until(() -> keepAlives.get() - before >= 2);
            assertThat(survivor.isValid()).isTrue();
            survivor.release();
        } finally {
            testOver.countDown();
        }
    }

    static List<LockLease> acquireMany(LockClient client, String prefix, int count, Duration ttl) throws Exception {
        Semaphore inFlight = new Semaphore(256);
        List<CompletableFuture<LockLease>> futures = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            inFlight.acquire();
            CompletableFuture<LockLease> future = client.acquireAsync(LockRequest.builder(prefix + "-" + i)
                    .leaseTtl(ttl)
                    .waitTimeout(Duration.ofSeconds(30))
                    .build());
            future.whenComplete((lease, failure) -> inFlight.release());
            futures.add(future);
        }
        List<LockLease> leases = new ArrayList<>(count);
        for (CompletableFuture<LockLease> future : futures) {
            leases.add(future.get(60, TimeUnit.SECONDS));
        }
        return leases;
    }
}
