package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockException;
import dev.fencelock.LockLease;
import dev.fencelock.LockMode;
import dev.fencelock.LockRequest;
import dev.fencelock.test.etcd.EtcdCluster;
import dev.fencelock.test.etcd.EtcdMember;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A read-write lock while the etcd leader is killed, on a real three-member cluster: readers and
 * writers of two clients contend for one resource, and at no moment is a writer inside with
 * anyone else, before, during or after the election. Every writer's token is larger than the
 * token of every holder, reader or writer, that was inside before it.
 */
class EtcdReadWriteFaultTest {

    private EtcdCluster cluster;

    private final List<LockClient> clients = new ArrayList<>();

    @BeforeEach
    void startCluster() {
        this.cluster = EtcdCluster.start(3);
    }

    @AfterEach
    void stopEverything() {
        this.clients.forEach(LockClient::close);
        this.cluster.close();
    }

    private LockClient client() {
        LockClient client = LockClient.builder(EtcdLockBackend.builder()
                        .endpoints(this.cluster.endpoints())
                        .requestTimeout(Duration.ofSeconds(2))
                        .build())
                .build();
        this.clients.add(client);
        return client;
    }

    @Test
    void aKilledLeaderNeverLetsAWriterInWithAnyoneElse() throws Exception {
        List<LockClient> contenders = List.of(client(), client());
        String resource = "catalogue";
        AtomicInteger readersInside = new AtomicInteger();
        AtomicInteger writersInside = new AtomicInteger();
        AtomicInteger mostReadersAtOnce = new AtomicInteger();
        AtomicInteger writerWithOthers = new AtomicInteger();
        AtomicInteger writerTokenNotAbove = new AtomicInteger();
        AtomicLong highestTokenInside = new AtomicLong();
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger writes = new AtomicInteger();
        AtomicInteger afterKill = new AtomicInteger();
        AtomicBoolean killed = new AtomicBoolean();
        // Bounded in count, and in time only as a last resort: a slow machine gets there by count.
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                LockClient client = contenders.get(t % 2);
                // Two writers and four readers: readers overlap each other, writers queue between them.
                LockMode mode = (t < 2) ? LockMode.EXCLUSIVE : LockMode.SHARED;
                workers.add(pool.submit(() -> {
                    LockRequest request = LockRequest.builder(resource)
                            .mode(mode)
                            .waitTimeout(Duration.ofSeconds(5))
                            .build();
                    for (int i = 0; i < 200 && System.nanoTime() < end && afterKill.get() < 60; i++) {
                        try (LockLease lease = client.acquire(request)) {
                            long token = lease.fencingToken();
                            if (mode == LockMode.EXCLUSIVE) {
                                if (writersInside.incrementAndGet() != 1 || readersInside.get() != 0) {
                                    writerWithOthers.incrementAndGet();
                                }
                                if (token <= highestTokenInside.get()) {
                                    writerTokenNotAbove.incrementAndGet();
                                }
                                highestTokenInside.accumulateAndGet(token, Math::max);
                                Thread.yield();
                                writersInside.decrementAndGet();
                                writes.incrementAndGet();
                            } else {
                                mostReadersAtOnce.accumulateAndGet(readersInside.incrementAndGet(), Math::max);
                                if (writersInside.get() != 0) {
                                    writerWithOthers.incrementAndGet();
                                }
                                highestTokenInside.accumulateAndGet(token, Math::max);
                                Thread.sleep(2);
                                readersInside.decrementAndGet();
                                reads.incrementAndGet();
                            }
                            if (killed.get()) {
                                afterKill.incrementAndGet();
                            }
                        } catch (LockException ex) {
                            // Unavailable during the election, or busy past the wait: not a holder.
                        }
                    }
                    return null;
                }));
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> writes.get() >= 10 && reads.get() >= 10);
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
        assertThat(writerWithOthers.get())
                .as("a writer inside with another holder")
                .isZero();
        assertThat(writerTokenNotAbove.get())
                .as("writers whose token was not above every earlier holder's")
                .isZero();
        assertThat(mostReadersAtOnce.get()).as("readers share the lock").isGreaterThan(1);
        assertThat(afterKill.get()).as("holders after the leader was killed").isPositive();
        try (EtcdObserver observer = new EtcdObserver(this.cluster.endpoints())) {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> observer.keysOf(resource).isEmpty());
        }
    }
}
