package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockException;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.etcd.EtcdMember;
import dev.fencelock.test.fault.FaultProxy;
import dev.fencelock.test.fault.GrpcFaultProxy;
import io.etcd.jetcd.KeyValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A semaphore's permits under faults on a real three-member cluster: a killed leader and lost
 * responses never let more holders in than there are permits. A put whose answer was lost
 * counts as a holder in etcd until it is retried (and adopted, with its token) or removed, so
 * nobody else is let in on its permit meanwhile. Each test gets a fresh cluster.
 */
class EtcdSemaphoreFaultTest {

    private static final int PERMITS = 2;

    private EtcdCluster cluster;

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @BeforeEach
    void startCluster() {
        this.cluster = EtcdCluster.start(3);
    }

    @AfterEach
    void stopEverything() throws Exception {
        for (int i = this.closeables.size() - 1; i >= 0; i--) {
            this.closeables.get(i).close();
        }
        this.cluster.close();
    }

    private <T extends AutoCloseable> T closeLater(T closeable) {
        this.closeables.add(closeable);
        return closeable;
    }

    private LockClient client(List<String> endpoints) {
        return closeLater(LockClient.builder(EtcdLockBackend.builder()
                        .endpoints(endpoints)
                        .requestTimeout(Duration.ofSeconds(2))
                        .build())
                .build());
    }

    private static LockRequest permit(String resource) {
        return LockRequest.builder(resource)
                .permits(PERMITS)
                .waitTimeout(Duration.ofSeconds(5))
                .build();
    }

    @Test
    void aKilledLeaderNeverLetsMoreHoldersInThanThereArePermits() throws Exception {
        List<LockClient> clients = List.of(client(this.cluster.endpoints()), client(this.cluster.endpoints()));
        String resource = "pool-failover";
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        AtomicInteger acquired = new AtomicInteger();
        AtomicInteger acquiredAfterKill = new AtomicInteger();
        AtomicBoolean killed = new AtomicBoolean();
        Set<Long> tokens = ConcurrentHashMap.newKeySet();
        AtomicInteger reusedTokens = new AtomicInteger();
        // Bounded in count, and in time only as a last resort: a slow machine gets there by count.
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                LockClient client = clients.get(t % 2);
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < 80 && System.nanoTime() < end && acquiredAfterKill.get() < 40; i++) {
                        try (LockLease lease = client.acquire(permit(resource))) {
                            mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            if (!tokens.add(lease.fencingToken())) {
                                reusedTokens.incrementAndGet();
                            }
                            acquired.incrementAndGet();
                            if (killed.get()) {
                                acquiredAfterKill.incrementAndGet();
                            }
                            Thread.yield();
                            inside.decrementAndGet();
                        } catch (LockException ex) {
                            // Unavailable during the election, or busy past the wait: not a holder.
                        }
                    }
                }));
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> acquired.get() >= 20);
            EtcdMember leader = this.cluster.awaitLeader(Duration.ofSeconds(30));
            leader.kill();
            killed.set(true);
            assertThat(this.cluster.awaitLeader(Duration.ofSeconds(30))).isNotSameAs(leader);
            for (Future<?> worker : workers) {
                worker.get(180, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(mostInside.get()).as("most permit holders at once").isBetween(1, PERMITS);
        assertThat(reusedTokens.get()).as("tokens handed out twice").isZero();
        assertThat(acquiredAfterKill.get())
                .as("permits after the leader was killed")
                .isPositive();
        try (EtcdObserver observer = new EtcdObserver(this.cluster.endpoints())) {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> observer.keysOf(resource).isEmpty());
        }
    }

    @Test
    void aPermitWhoseAnswerWasLostCountsUntilItsRetryAdoptsIt() {
        FaultProxy proxy =
                closeLater(FaultProxy.forEndpoint(this.cluster.member(0).clientEndpoint()));
        LockClient lossy = client(List.of(proxy.endpoint()));
        LockClient holder = client(this.cluster.endpoints());
        LockClient latecomer = client(this.cluster.endpoints());
        String resource = "pool-lost-answer";
        lossy.acquire(permit("warm-up")).release();
        LockLease first = holder.acquire(permit(resource));
        LockRequest retried = LockRequest.builder(resource)
                .permits(PERMITS)
                .requestId("report-7")
                .waitTimeout(Duration.ofSeconds(3))
                .build();

        proxy.blackholeResponses();
        assertThatThrownBy(() -> lossy.acquire(retried)).isInstanceOf(LockBackendUnavailableException.class);
        proxy.restore();

        try (EtcdObserver observer = new EtcdObserver(this.cluster.endpoints())) {
            List<KeyValue> committed = observer.keysOf(resource);
            assertThat(committed).as("the holder's key and the committed put").hasSize(2);
            // The unanswered put holds the second permit in etcd: nobody else gets it.
            assertThat(latecomer.tryAcquire(permit(resource))).isEmpty();

            LockLease second = await().atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .until(() -> lossy.acquire(retried), lease -> lease != null);
            assertThat(second.fencingToken()).isEqualTo(committed.get(1).getCreateRevision());
            assertThat(observer.keysOf(resource)).hasSize(2);
            assertThat(latecomer.tryAcquire(permit(resource))).isEmpty();

            second.release();
            LockLease third = latecomer.tryAcquire(permit(resource)).orElseThrow();
            assertThat(third.fencingToken()).isGreaterThan(second.fencingToken());
            third.release();
            first.release();
            assertThat(observer.keysOf(resource)).isEmpty();
        }
    }

    @Test
    void aPermitPutSentAgainAfterADroppedAnswerTakesOnePermitOnly() throws Exception {
        GrpcFaultProxy proxy =
                closeLater(GrpcFaultProxy.forEndpoint(this.cluster.member(0).clientEndpoint()));
        LockClient resending = closeLater(LockClient.builder(EtcdLockBackend.builder()
                        .endpoints(proxy.endpoint())
                        .requestTimeout(Duration.ofSeconds(5))
                        .attemptTimeout(Duration.ofMillis(300))
                        .build())
                .build());
        LockClient holder = client(this.cluster.endpoints());
        LockClient latecomer = client(this.cluster.endpoints());
        String resource = "pool-resent";
        resending.acquire(permit("warm-up")).release();
        LockLease first = holder.acquire(permit(resource));

        proxy.dropResponses(GrpcFaultProxy.TXN, 1);
        LockLease second = resending.acquire(permit(resource));

        try (EtcdObserver observer = new EtcdObserver(this.cluster.endpoints())) {
            // The first send created the key; the second found it on its session and took its token.
            assertThat(observer.keysOf(resource))
                    .extracting(KeyValue::getCreateRevision)
                    .containsExactly(first.fencingToken(), second.fencingToken());
            assertThat(latecomer.tryAcquire(permit(resource))).isEmpty();
            first.release();
            second.release();
            assertThat(observer.keysOf(resource)).isEmpty();
        }
    }
}
