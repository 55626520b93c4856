package dev.fencelock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.test.fault.FaultProxy;
import dev.fencelock.test.zookeeper.ZooKeeperEnsemble;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The ZooKeeper backend's guarantees under faults injected into real servers and connections. */
class ZooKeeperFaultTest {

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = this.closeables.size() - 1; i >= 0; i--) {
            this.closeables.get(i).close();
        }
    }

    @Test
    void tokensKeepGrowingWhenTheLeaderDiesBecauseANewLeaderStartsANewEpoch() throws Exception {
        ZooKeeperEnsemble ensemble = closeLater(ZooKeeperEnsemble.start(3));
        LockClient client = closeLater(client(ensemble.connectString()));
        LockRequest request = LockRequest.builder("leader-change").build();
        long before;
        try (LockLease lease = client.acquire(request)) {
            before = lease.fencingToken();
        }
        ZooKeeperEnsemble.Member leader = ensemble.leader();
        leader.kill();
        long after;
        // The client reconnects to a surviving member once the two of them have elected a leader.
        try (LockLease lease = client.acquireAsync(LockRequest.builder("leader-change")
                        .waitTimeout(Duration.ofSeconds(60))
                        .build())
                .get(120, TimeUnit.SECONDS)) {
            after = lease.fencingToken();
        }
        assertThat(after).isGreaterThan(before);
        // A zxid's high 32 bits are the leader's epoch: the new leader's is larger.
        assertThat(after >>> 32).isGreaterThan(before >>> 32);
    }

    @Test
    void aHolderCutOffFromZooKeeperStopsTrustingItsLockBeforeTheNextHolderGetsIt() throws Exception {
        ZooKeeperEnsemble ensemble = closeLater(ZooKeeperEnsemble.standalone());
        ZooKeeperEnsemble.Member server = ensemble.members().get(0);
        FaultProxy proxy = closeLater(FaultProxy.start("127.0.0.1", server.clientPort()));
        LockClient cutOff = closeLater(client("127.0.0.1:" + proxy.port()));
        LockClient next = closeLater(client(ensemble.connectString()));
        LockRequest request =
                LockRequest.builder("cut-off").leaseTtl(Duration.ofSeconds(3)).build();
        LockLease held = cutOff.acquire(request);
        CompletableFuture<Instant> lostAt = new CompletableFuture<>();
        held.onLost(lost -> lostAt.complete(Instant.now()));

        proxy.blackhole();
        CompletableFuture<LockLease> waiting = next.acquireAsync(LockRequest.builder("cut-off")
                .waitTimeout(Duration.ofSeconds(60))
                .build());
        LockLease successor = waiting.get(90, TimeUnit.SECONDS);
        Instant grantedAt = Instant.now();

        // The ensemble expired the holder's session; the holder had stopped trusting the lock before.
        // (When its listeners hear of it depends on when its timer thread runs: that is not the promise.)
        assertThat(held.isValid()).isFalse();
        assertThat(held.expiresAt()).isBefore(grantedAt);
        assertThat(lostAt.get(30, TimeUnit.SECONDS)).isNotNull();
        assertThat(successor.fencingToken()).isGreaterThan(held.fencingToken());

        proxy.restore();
        assertThatThrownBy(held::renew).isInstanceOf(LockLostException.class);
        successor.release();
    }

    @Test
    void aWaiterWhoseSessionExpiresIsToldSoInsteadOfWaitingOutItsTimeout() throws Exception {
        ZooKeeperEnsemble ensemble = closeLater(ZooKeeperEnsemble.standalone());
        ZooKeeperEnsemble.Member server = ensemble.members().get(0);
        FaultProxy proxy = closeLater(FaultProxy.start("127.0.0.1", server.clientPort()));
        LockClient holder = closeLater(client(ensemble.connectString()));
        LockClient waiter = closeLater(client("127.0.0.1:" + proxy.port()));
        LockLease held = holder.acquire(LockRequest.of("expiring-waiter"));
        CompletableFuture<LockLease> waiting = waiter.acquireAsync(LockRequest.builder("expiring-waiter")
                .leaseTtl(Duration.ofSeconds(2))
                .waitTimeout(Duration.ofSeconds(120))
                .build());
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> ((ZooKeeperLockBackend) holder.backend())
                                .queue(dev.fencelock.ResourceName.of("expiring-waiter", 255))
                                .get(30, TimeUnit.SECONDS)
                                .size()
                        == 2);

        proxy.blackhole();
        // The ensemble expires the waiter's 2 s session while nothing gets through; once the waiter
        // reaches it again, it learns that its session (and its queue node) are gone.
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .until(() -> ((ZooKeeperLockBackend) holder.backend())
                                .queue(dev.fencelock.ResourceName.of("expiring-waiter", 255))
                                .get(30, TimeUnit.SECONDS)
                                .size()
                        == 1);
        proxy.restore();

        assertThatThrownBy(() -> waiting.get(60, TimeUnit.SECONDS))
                .hasCauseInstanceOf(dev.fencelock.LockBackendUnavailableException.class)
                .hasMessageContaining("ended while it waited");
        assertThat(held.isValid()).isTrue();
        held.release();
    }

    @Test
    void aWaiterWhoseHeartbeatsWentUnansweredIsGrantedOnlyOnceItsSessionIsConfirmedAgain() throws Exception {
        ZooKeeperEnsemble ensemble = closeLater(ZooKeeperEnsemble.standalone());
        ZooKeeperEnsemble.Member server = ensemble.members().get(0);
        FaultProxy proxy = closeLater(FaultProxy.start("127.0.0.1", server.clientPort()));
        LockClient holder = closeLater(client(ensemble.connectString()));
        ZooKeeperLockBackend waiterBackend = ZooKeeperLockBackend.builder()
                .connectString("127.0.0.1:" + proxy.port())
                .build();
        LockClient waiter = closeLater(LockClient.builder(waiterBackend)
                // Trusted 2.6 s after an answered heartbeat; the server keeps the session 4 s after its last request.
                .defaultLeaseTtl(Duration.ofSeconds(4))
                .build());
        LockRequest request = LockRequest.builder("unconfirmed-waiter")
                .waitTimeout(Duration.ofSeconds(60))
                .build();
        ResourceName resource = ResourceName.of("unconfirmed-waiter", ResourceName.DEFAULT_MAX_LENGTH);
        LockLease held = holder.acquire(request);
        CompletableFuture<LockLease> waiting = waiter.acquireAsync(request);
        // Whether the lease was valid at the instant it was handed over, before any later heartbeat.
        CompletableFuture<Boolean> validWhenGranted = waiting.thenApply(LockLease::isValid);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> ((ZooKeeperLockBackend) holder.backend())
                                .queue(resource)
                                .get()
                                .size()
                        == 2);

        // Its requests still reach the server, which keeps the session; the answers, heartbeats' too, are lost
        // until its lock session (its only session) passed its local deadline.
        proxy.blackholeResponses();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !waiterBackend.sessionDeadlines().isEmpty()
                        && waiterBackend.sessionDeadlines().values().stream()
                                .allMatch(until -> System.nanoTime() - until > 0));
        held.release();
        proxy.restore();

        assertThat(validWhenGranted.get(60, TimeUnit.SECONDS))
                .as("the lease handed to the waiter is valid")
                .isTrue();
        waiting.join().release();
    }

    private LockClient client(String connectString) {
        return LockClient.builder(ZooKeeperLockBackend.builder()
                        .connectString(connectString)
                        .build())
                .build();
    }

    private <T extends AutoCloseable> T closeLater(T closeable) {
        this.closeables.add(closeable);
        return closeable;
    }
}
