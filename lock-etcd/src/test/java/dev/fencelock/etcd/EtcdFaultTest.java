package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockException;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.spi.BackendHealth;
import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.etcd.EtcdMember;
import dev.fencelock.test.fault.FaultProxy;
import io.etcd.jetcd.KeyValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
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
 * Faults injected into a real three-member etcd cluster: the leader killed, a majority frozen,
 * a response lost. Every test checks what etcd holds, not what the client logged. Each test gets
 * a fresh cluster, because the faults leave members in odd states.
 */
class EtcdFaultTest {

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
        return client(endpoints, Duration.ofSeconds(2));
    }

    private LockClient client(List<String> endpoints, Duration requestTimeout) {
        EtcdLockBackend backend = EtcdLockBackend.builder()
                .endpoints(endpoints)
                .requestTimeout(requestTimeout)
                .build();
        return closeLater(LockClient.builder(backend).build());
    }

    @Test
    void acquisitionsContinueAfterTheLeaderIsKilledWithoutTwoHoldersOrSmallerTokens() throws Exception {
        LockClient first = client(this.cluster.endpoints());
        LockClient second = client(this.cluster.endpoints());
        String resource = "failover";
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Long> tokens = new ArrayList<>();
        AtomicInteger acquired = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        AtomicInteger acquiredAfterKill = new AtomicInteger();
        AtomicBoolean killed = new AtomicBoolean();
        // Bounded in count, and in time only as a last resort: a slow machine gets there by count.
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                LockClient client = (t % 2 == 0) ? first : second;
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < 60 && System.nanoTime() < end && acquiredAfterKill.get() < 40; i++) {
                        try (LockLease lease = client.acquire(LockRequest.builder(resource)
                                .waitTimeout(Duration.ofSeconds(5))
                                .build())) {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            synchronized (tokens) {
                                tokens.add(lease.fencingToken());
                            }
                            acquired.incrementAndGet();
                            if (killed.get()) {
                                acquiredAfterKill.incrementAndGet();
                            }
                            inside.decrementAndGet();
                        } catch (LockException ex) {
                            failed.incrementAndGet();
                        }
                    }
                }));
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> acquired.get() >= 20);
            EtcdMember leader = this.cluster.awaitLeader(Duration.ofSeconds(30));
            leader.kill();
            killed.set(true);
            EtcdMember newLeader = this.cluster.awaitLeader(Duration.ofSeconds(30));
            assertThat(newLeader).isNotSameAs(leader);
            for (Future<?> worker : workers) {
                worker.get(180, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(overlaps.get()).as("two holders at once").isZero();
        assertThat(acquiredAfterKill.get())
                .as("acquisitions after the leader was killed")
                .isPositive();
        assertThat(tokens)
                .as("tokens in the order the lock was held")
                .isSorted()
                .doesNotHaveDuplicates();
    }

    @Test
    void withoutAMajorityNothingIsGrantedAndHeldLocksAreLostByTheirDeadline() throws Exception {
        // Requests that may wait 30 s: only the wait time and the lease deadline can end things sooner.
        LockClient client = client(this.cluster.endpoints(), Duration.ofSeconds(30));
        LockLease held = client.acquire(
                LockRequest.builder("held").leaseTtl(Duration.ofSeconds(3)).build());
        CountDownLatch lost = new CountDownLatch(1);
        held.onLost(cause -> lost.countDown());
        // Warm the session for the TTL class used below, so the failure is the acquire's own.
        client.acquire(LockRequest.of("warm-up")).release();

        List<EtcdMember> frozen = List.of(this.cluster.member(0), this.cluster.member(1));
        frozen.forEach(EtcdMember::pause);
        long started = System.nanoTime();
        assertThatThrownBy(() -> client.acquire(LockRequest.builder("blocked")
                        .waitTimeout(Duration.ofSeconds(2))
                        .build()))
                .isInstanceOf(LockBackendUnavailableException.class);
        // Ended by its 2 s wait time, not by its requests' 30 s; the rest is a loaded machine's slack.
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
        // The held lock cannot be confirmed: by its local deadline (3 s TTL) it is reported lost, long
        // before a request of 30 s could have told.
        assertThat(lost.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(held.isValid()).isFalse();

        frozen.forEach(EtcdMember::resume);
        this.cluster.awaitLeader(Duration.ofSeconds(30));
        try (EtcdObserver observer = new EtcdObserver(this.cluster.endpoints())) {
            // Whatever the failed attempt may have written is cleaned up: nothing was granted.
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> observer.keysOf("blocked").isEmpty());
            // The same client recovers without a restart.
            LockLease after = await().atMost(Duration.ofSeconds(60))
                    .ignoreExceptions()
                    .until(() -> client.acquire(LockRequest.of("blocked")), lease -> lease != null);
            assertThat(after.fencingToken()).isGreaterThan(held.fencingToken());
            assertThat(observer.keysOf("blocked")).hasSize(1);
            after.release();
        }
    }

    @Test
    void aClientCutOffPastItsLeaseRecoversOnceTheNetworkIsBack() throws Exception {
        FaultProxy proxy =
                closeLater(FaultProxy.forEndpoint(this.cluster.member(0).clientEndpoint()));
        LockClient client = client(List.of(proxy.endpoint()));
        LockRequest shortLease = LockRequest.builder("partitioned")
                .leaseTtl(Duration.ofSeconds(2))
                .build();
        LockLease held = client.acquire(shortLease);
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            // Acquirers keep trying through the partition: their failed session grants must not stick.
            for (int t = 0; t < 3; t++) {
                pool.submit(() -> {
                    while (!stop.get()) {
                        try (LockLease lease = client.acquire(LockRequest.builder("busy")
                                .leaseTtl(Duration.ofSeconds(2))
                                .waitTimeout(Duration.ofSeconds(1))
                                .build())) {
                            Thread.onSpinWait();
                        } catch (LockException expected) {
                            // the partition
                        }
                    }
                });
            }
            proxy.blackhole();
            await().atMost(Duration.ofSeconds(30)).until(() -> !held.isValid());
            proxy.restore();
            LockLease after = await().atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .until(() -> client.acquire(shortLease), lease -> lease != null);
            assertThat(after.fencingToken()).isGreaterThan(held.fencingToken());
            assertThat(after.leaseId()).isNotEqualTo(held.leaseId());
            after.release();
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
    }

    @Test
    void healthIsDownWithinItsTimeoutWithoutAMajorityAndUpAgainAfter() throws Exception {
        LockClient client = client(this.cluster.endpoints(), Duration.ofSeconds(30));
        Duration timeout = Duration.ofSeconds(1);
        BackendHealth up = client.administration()
                .orElseThrow()
                .health(Duration.ofSeconds(30))
                .get(60, TimeUnit.SECONDS);
        assertThat(up.up()).isTrue();
        assertThat(up.details()).containsEntry("memberCount", 3).containsKey("leaderId");

        List<EtcdMember> frozen = List.of(this.cluster.member(0), this.cluster.member(1));
        frozen.forEach(EtcdMember::pause);
        long started = System.nanoTime();
        BackendHealth down =
                client.administration().orElseThrow().health(timeout).get(60, TimeUnit.SECONDS);
        // Ended by its own 1 s timeout, not by its requests' 30 s; the rest is a loaded machine's slack.
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
        assertThat(down.up()).isFalse();
        assertThat(down.details()).containsKey("error");

        frozen.forEach(EtcdMember::resume);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> client.administration()
                        .orElseThrow()
                        .health(timeout)
                        .get(60, TimeUnit.SECONDS)
                        .up());
    }

    @Test
    void aRetryAfterALostResponseGetsTheSameLockAndToken() {
        FaultProxy proxy =
                closeLater(FaultProxy.forEndpoint(this.cluster.member(0).clientEndpoint()));
        LockClient client = client(List.of(proxy.endpoint()));
        client.acquire(LockRequest.of("warm-up")).release();
        LockRequest request = LockRequest.builder("lost-response")
                .requestId("order-7-attempt")
                .build();

        proxy.blackholeResponses();
        assertThatThrownBy(() -> client.acquire(request)).isInstanceOf(LockBackendUnavailableException.class);
        proxy.restore();

        try (EtcdObserver observer = new EtcdObserver(this.cluster.endpoints())) {
            // etcd committed the put whose answer was lost.
            List<KeyValue> committed = observer.keysOf("lost-response");
            assertThat(committed).hasSize(1);
            LockLease lease = await().atMost(Duration.ofSeconds(30))
                    .ignoreExceptions()
                    .until(() -> client.acquire(request), l -> l != null);
            assertThat(lease.fencingToken()).isEqualTo(committed.get(0).getCreateRevision());
            assertThat(observer.keysOf("lost-response")).hasSize(1);
            lease.release();
            assertThat(observer.keysOf("lost-response")).isEmpty();
        }
    }

    @Test
    void anAttemptWithALostResponseThatIsNotRetriedLeavesNoKey() {
        FaultProxy proxy =
                closeLater(FaultProxy.forEndpoint(this.cluster.member(0).clientEndpoint()));
        LockClient client = client(List.of(proxy.endpoint()));
        client.acquire(LockRequest.of("warm-up")).release();

        proxy.blackholeResponses();
        assertThatThrownBy(() -> client.acquire(LockRequest.of("orphan-candidate")))
                .isInstanceOf(LockBackendUnavailableException.class);
        proxy.restore();
        try (EtcdObserver observer = new EtcdObserver(this.cluster.endpoints())) {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> observer.keysOf("orphan-candidate").isEmpty());
        }
    }
}
