package dev.fencelock.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockException;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.LockOutcomeUnknownException;
import dev.fencelock.LockRequest;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.fault.GrpcFaultProxy;
import io.grpc.Status;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The meters of what the etcd backend sees, against real etcd members: each event is caused the way
 * it happens in production (a response lost on the way back, keep-alives that stall, a leader
 * killed) and each meter is read from the registry.
 */
class BackendMetricsEtcdTest {

    private static final String KEEP_ALIVE = "etcdserverpb.Lease/LeaseKeepAlive";

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private GrpcFaultProxy proxy;

    private LockClient client;

    @AfterEach
    void close() {
        if (this.client != null) {
            this.client.close();
        }
        if (this.proxy != null) {
            this.proxy.close();
        }
    }

    private LockClient client(List<String> endpoints) {
        this.client = LockClient.builder(EtcdLockBackend.builder()
                        .endpoints(endpoints)
                        .attemptTimeout(Duration.ofMillis(300))
                        .eventListener(new BackendMetrics(this.registry))
                        .build())
                .eventListener(new LockMetrics(this.registry))
                .build();
        return this.client;
    }

    private LockClient clientThroughProxy() {
        this.proxy = GrpcFaultProxy.forEndpoint(etcd.cluster().member(0).clientEndpoint());
        return client(List.of(this.proxy.endpoint()));
    }

    /**
     * The store's room is gauged from the backend's first capacity check, one interval after it was
     * built: the database's size against the configured quota, the history since the last
     * compaction, no alarm raised.
     */
    @Test
    void theStoresSizeQuotaAndHistoryAreGaugedFromTheFirstCheck() {
        this.client = LockClient.builder(EtcdLockBackend.builder()
                        .endpoints(etcd.endpoints())
                        .quotaBackendBytes(64L * 1024 * 1024)
                        .capacityCheckInterval(Duration.ofSeconds(1))
                        .eventListener(new BackendMetrics(this.registry))
                        .build())
                .build();
        this.client.acquire(LockRequest.of("capacity")).release();
        // The first check registers the gauges one after the other, on its own thread: the last one counts.
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(this.registry
                                .find("fencelock.store.alarms")
                                .tag("alarm", "corrupt")
                                .gauge())
                        .isNotNull());
        assertThat(this.registry.get("fencelock.store.size").gauge().value()).isPositive();
        assertThat(this.registry.get("fencelock.store.size.in.use").gauge().value())
                .isPositive()
                .isLessThanOrEqualTo(
                        this.registry.get("fencelock.store.size").gauge().value());
        assertThat(this.registry.get("fencelock.store.quota").gauge().value()).isEqualTo(64.0 * 1024 * 1024);
        assertThat(this.registry
                        .get("fencelock.store.compaction.revisions")
                        .gauge()
                        .value())
                .isPositive();
        assertThat(this.registry.get("fencelock.store.compaction.age").gauge().value())
                .isGreaterThanOrEqualTo(0);
        assertThat(this.registry
                        .get("fencelock.store.alarms")
                        .tag("alarm", "nospace")
                        .gauge()
                        .value())
                .isZero();
    }

    @Test
    void everyWriteIsTimedByWhatItWasFor() {
        LockClient client = client(etcd.endpoints());
        try (LockLease lease = client.acquire(LockRequest.of("commit-latency"))) {
            lease.renew();
        }

        // A write is reported when its answer arrives, which may be just after its caller went on.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(commits("acquire")).isEqualTo(1);
            assertThat(commits("release")).isEqualTo(1);
            assertThat(commits("renew")).isGreaterThanOrEqualTo(1);
        });
        assertThat(commits("abandon")).isZero();
        assertThat(this.registry
                        .get("fencelock.commit")
                        .tag("operation", "acquire")
                        .timer()
                        .totalTime(TimeUnit.NANOSECONDS))
                .isPositive();
    }

    /** etcd applied the put, but its answer never came back: the acquisition's outcome is unknown. */
    @Test
    void anAcquisitionWhoseWriteWasNeverAnsweredEndsAsUnknown() {
        LockClient client = clientThroughProxy();
        client.acquire(LockRequest.of("warm-up")).release();
        this.proxy.dropResponses(GrpcFaultProxy.TXN, 1_000);

        // Long enough for the put to be sent and applied on a loaded machine; no answer ever comes.
        assertThatThrownBy(() -> client.acquire(LockRequest.builder("answer-lost")
                        .waitTimeout(Duration.ofSeconds(3))
                        .build()))
                .isInstanceOf(LockOutcomeUnknownException.class);
        this.proxy.dropResponses(GrpcFaultProxy.TXN, 0);

        assertThat(acquisitions("unknown")).isEqualTo(1);
        assertThat(acquisitions("unavailable")).isZero();
    }

    @Test
    void aKeepAliveThatFailsIsCountedEvenWhenTheNextOneSucceeds() {
        LockClient client = clientThroughProxy();
        // A round every 2 s, valid for 5.4 s: one refused round and a loaded machine's delay leave it valid.
        LockLease lease = client.acquire(LockRequest.builder("renewal-fails-once")
                .leaseTtl(Duration.ofSeconds(6))
                .build());
        this.proxy.refuse(KEEP_ALIVE, 1, Status.UNAVAILABLE.withDescription("etcdserver: request timed out"));

        await().atMost(Duration.ofSeconds(30)).until(() -> counter("fencelock.lease.renewal.failed") == 1);
        // Retried 500 ms later, and every third of the TTL after that: the lease outlives its TTL.
        long renewed = commits("renew");
        await().atMost(Duration.ofSeconds(30)).until(() -> commits("renew") >= renewed + 2);
        assertThat(lease.isValid()).isTrue();
        assertThat(counter("fencelock.lease.expired")).isZero();
        lease.release();
    }

    @Test
    void aSessionLeaseWhoseKeepAlivesStallExpiresWithItsLocks() {
        LockClient client = clientThroughProxy();
        double expiredBefore = counterOrZero("fencelock.lease.expired");
        // Stalled before the lock is taken, so that no keep-alive of its session can get through. Taken
        // after it, a loaded machine's late grant answer could let the session run out before the stall
        // began, and the stall would test nothing.
        this.proxy.stall(KEEP_ALIVE, 100);
        LockLease lease = client.acquire(LockRequest.builder("renewals-stall")
                .leaseTtl(Duration.ofSeconds(3))
                .build());
        AtomicReference<LockLostException> lost = new AtomicReference<>();
        lease.onLost(lost::set);

        await().atMost(Duration.ofSeconds(30)).until(() -> lost.get() != null);
        assertThat(lost.get()).hasMessageContaining("was lost").hasMessageContaining("lease");
        // The lock's session is counted when it expires. A session whose grant a loaded machine answers
        // after its TTL ran out is rightly counted too (the lock then goes on a new one), so at least one.
        await().atMost(Duration.ofSeconds(30)).until(() -> counter("fencelock.lease.expired") >= expiredBefore + 1);
        await().atMost(Duration.ofSeconds(30)).until(() -> counter("fencelock.lease.renewal.failed") >= 1);
        assertThat(this.registry
                        .get("fencelock.lost")
                        .tag("lock", "unnamed")
                        .counter()
                        .count())
                .isEqualTo(1);
    }

    /**
     * A leader killed under load: the client sees a larger raft term in the answers after the
     * election, and writes that could not commit meanwhile make a stretch without a leader.
     */
    @Test
    void aKilledLeaderIsALeaderChangeAndAStretchWithoutLeader() throws Exception {
        // Elections only when asked for: a 3 s election timeout outlasts a loaded machine's stalls.
        try (EtcdCluster cluster = EtcdCluster.builder()
                .members(3)
                .heartbeatInterval(Duration.ofMillis(300))
                .electionTimeout(Duration.ofSeconds(3))
                .build()
                .start()) {
            LockClient client = client(cluster.endpoints());
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger acquired = new AtomicInteger();
            List<Thread> workers = List.of(0, 1, 2, 3).stream()
                    .map(i -> new Thread(() -> {
                        while (!stop.get()) {
                            try {
                                client.acquire(LockRequest.builder("failover-" + i)
                                                .waitTimeout(Duration.ofSeconds(10))
                                                .build())
                                        .release();
                                acquired.incrementAndGet();
                            } catch (LockException ex) {
                                // counted by the meters; the loop goes on
                            }
                        }
                    }))
                    .toList();
            workers.forEach(Thread::start);
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> acquired.get() >= 20);
                assertThat(counter("fencelock.leader.changes")).isZero();

                cluster.awaitLeader(Duration.ofSeconds(30)).kill();
                int before = acquired.get();
                await().atMost(Duration.ofSeconds(60)).until(() -> acquired.get() >= before + 20);
            } finally {
                stop.set(true);
                for (Thread worker : workers) {
                    worker.join(15_000);
                }
            }

            assertThat(counter("fencelock.leader.changes")).isGreaterThanOrEqualTo(1);
            var absent = this.registry.get("fencelock.leader.absent").timer();
            assertThat(absent.count()).isGreaterThanOrEqualTo(1);
            assertThat(absent.max(TimeUnit.MILLISECONDS)).isPositive();
            assertThat(this.registry
                            .get("fencelock.leader.absent.current")
                            .gauge()
                            .value())
                    .isZero();
            this.client.close();
            this.client = null;
        }
    }

    private long commits(String operation) {
        return this.registry
                .get("fencelock.commit")
                .tag("operation", operation)
                .timer()
                .count();
    }

    private long acquisitions(String outcome) {
        var timer =
                this.registry.find("fencelock.acquire").tag("outcome", outcome).timer();
        return (timer != null) ? timer.count() : 0;
    }

    private double counter(String name) {
        return this.registry.get(name).counter().count();
    }

    private double counterOrZero(String name) {
        var counter = this.registry.find(name).counter();
        return (counter != null) ? counter.count() : 0;
    }
}
