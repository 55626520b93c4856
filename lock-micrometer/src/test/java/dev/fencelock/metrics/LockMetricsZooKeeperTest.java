package dev.fencelock.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.test.fault.FaultProxy;
import dev.fencelock.test.zookeeper.ZooKeeperEnsembleExtension;
import dev.fencelock.zookeeper.ZooKeeperLockBackend;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lock meters and the backend's meters against a real ZooKeeper server: what the acquisitions of a held lock
 * end as, and a holder whose session the server expires because its connection went silent.
 */
class LockMetricsZooKeeperTest {

    @RegisterExtension
    static final ZooKeeperEnsembleExtension zookeeper = ZooKeeperEnsembleExtension.members(1);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = this.closeables.size() - 1; i >= 0; i--) {
            this.closeables.get(i).close();
        }
    }

    /** A client whose meters are read, connected to {@code connectString}. */
    private LockClient measured(String connectString) {
        LockMetrics metrics = new LockMetrics(this.registry);
        LockClient client = LockClient.builder(ZooKeeperLockBackend.builder()
                        .connectString(connectString)
                        .eventListener(new BackendMetrics(this.registry))
                        .build())
                .eventListener(metrics)
                .build();
        metrics.bindGauges(client);
        this.closeables.add(client);
        return client;
    }

    private LockClient unmeasured() {
        LockClient client = LockClient.builder(ZooKeeperLockBackend.builder()
                        .connectString(zookeeper.connectString())
                        .build())
                .build();
        this.closeables.add(client);
        return client;
    }

    @Test
    void aGrantIsAcquiredATryOfAHeldLockIsAConflictAndAWaitThatRunsOutIsATimeout() {
        LockClient client = measured(zookeeper.connectString());
        LockClient other = unmeasured();

        try (LockLease lease = client.acquire(
                LockRequest.builder("report:1").lockName("report").build())) {
            assertThat(acquisitions("report", "acquired")).isEqualTo(1);
            assertThat(this.registry
                            .get("fencelock.held")
                            .tag("lock", "report")
                            .longTaskTimer()
                            .activeTasks())
                    .isEqualTo(1);
            assertThat(this.registry.get("fencelock.active").gauge().value()).isEqualTo(1.0);
            assertThat(lease.fencingToken()).isPositive();
        }
        assertThat(this.registry
                        .get("fencelock.held")
                        .tag("lock", "report")
                        .longTaskTimer()
                        .activeTasks())
                .isZero();
        assertThat(this.registry.get("fencelock.active").gauge().value()).isZero();

        LockLease held = other.acquire(LockRequest.of("report:1"));
        assertThat(client.tryAcquire(
                        LockRequest.builder("report:1").lockName("report").build()))
                .isEmpty();
        assertThatThrownBy(() -> client.acquire(LockRequest.builder("report:1")
                        .lockName("report")
                        .waitTimeout(Duration.ofSeconds(1))
                        .build()))
                .isInstanceOf(LockAcquisitionTimeoutException.class);

        assertThat(acquisitions("report", "conflict")).isEqualTo(1);
        assertThat(acquisitions("report", "timeout")).isEqualTo(1);
        assertThat(acquisitions("report", "acquired")).isEqualTo(1);
        assertThat(acquisitions("report", "unknown")).isZero();
        assertThat(acquisitions("report", "unavailable")).isZero();
        assertThat(this.registry.get("fencelock.waiting").gauge().value()).isZero();
        assertThat(this.registry.get("fencelock.active").gauge().value()).isZero();
        // Neither the try nor the timed-out wait leaves a node behind: the holder's is the only one.
        await().atMost(Duration.ofSeconds(30))
                .until(() -> ((ZooKeeperLockBackend) other.backend())
                                .queue(ResourceName.of("report:1", ResourceName.DEFAULT_MAX_LENGTH))
                                .get(30, TimeUnit.SECONDS)
                                .size()
                        == 1);
        held.release();
    }

    @Test
    void aHolderWhoseSessionTheServerExpiresIsCountedLostOnce() throws Exception {
        FaultProxy proxy = FaultProxy.start(
                "127.0.0.1", zookeeper.ensemble().members().get(0).clientPort());
        this.closeables.add(proxy);
        LockClient client = measured("127.0.0.1:" + proxy.port());
        LockClient next = unmeasured();
        LockLease lease = client.acquire(LockRequest.builder("cut-off:1")
                .lockName("cut-off")
                .leaseTtl(Duration.ofSeconds(3))
                .build());
        AtomicReference<LockLostException> lost = new AtomicReference<>();
        lease.onLost(lost::set);
        assertThat(this.registry
                        .get("fencelock.lost")
                        .tag("lock", "cut-off")
                        .counter()
                        .count())
                .isZero();
        assertThat(this.registry.get("fencelock.lease.expired").counter().count())
                .isZero();

        // Nothing passes any more: no heartbeat is answered, and the server hears from the session no more.
        proxy.blackhole();
        CompletableFuture<LockLease> waiting = next.acquireAsync(LockRequest.builder("cut-off:1")
                .waitTimeout(Duration.ofSeconds(60))
                .build());
        await().atMost(Duration.ofSeconds(30)).until(() -> lost.get() != null);
        // The server expired the holder's session and deleted its node: the next client holds the lock.
        try (LockLease taken = waiting.get(60, TimeUnit.SECONDS)) {
            assertThat(taken.fencingToken()).isGreaterThan(lease.fencingToken());
            // The holder's client hears from the server again, and of its expired session.
            proxy.restore();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> ((ZooKeeperLockBackend) client.backend())
                            .sessionDeadlines()
                            .isEmpty());
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> this.registry
                                .get("fencelock.lost")
                                .tag("lock", "cut-off")
                                .counter()
                                .count()
                        == 1);
        // Lost at the session's local deadline, then told by the server that it expired: one loss, one session.
        await().during(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(30))
                .until(() -> this.registry
                                        .get("fencelock.lost")
                                        .tag("lock", "cut-off")
                                        .counter()
                                        .count()
                                == 1
                        && this.registry
                                        .get("fencelock.lease.expired")
                                        .counter()
                                        .count()
                                == 1);
        assertThat(this.registry
                        .get("fencelock.held")
                        .tag("lock", "cut-off")
                        .longTaskTimer()
                        .activeTasks())
                .isZero();
        assertThat(this.registry.get("fencelock.active").gauge().value()).isZero();
    }

    private long acquisitions(String lockName, String outcome) {
        var timer = this.registry
                .find("fencelock.acquire")
                .tags("lock", lockName, "outcome", outcome)
                .timer();
        return (timer != null) ? timer.count() : 0;
    }
}
