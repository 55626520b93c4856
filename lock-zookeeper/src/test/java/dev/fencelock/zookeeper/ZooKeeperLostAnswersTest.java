package dev.fencelock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.test.fault.FaultProxy;
import dev.fencelock.test.zookeeper.ZooKeeperEnsembleExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Answers lost with a connection, where the hour-long model run found them: a node or a watch that
 * the client no longer knows about must not outlive what it was for.
 */
class ZooKeeperLostAnswersTest {

    @RegisterExtension
    static final ZooKeeperEnsembleExtension zookeeper = ZooKeeperEnsembleExtension.members(1);

    /**
     * A waiter whose create lost its answer, cancelled while ZooKeeper cannot be reached: its node
     * was created, and it must still be deleted once the connection is back. Left behind, with its
     * session alive, it would take the lock at the next release and keep it from everyone.
     */
    @Test
    void aWaiterCancelledAfterItsCreateLostItsAnswerLeavesNoNode() throws Exception {
        String resource = "cancelled-after-lost-create";
        try (FaultProxy route = proxyToFirstMember();
                LockClient holder = LockClient.builder(direct()).build();
                LockClient lossy = LockClient.builder(through(route)).build()) {
            ZooKeeperLockBackend reader = (ZooKeeperLockBackend) holder.backend();
            LockLease held = holder.acquire(LockRequest.of(resource));
            // Opens the lossy client's session first, so that the create is what loses its answer.
            lossy.acquire(LockRequest.of("warm-up-" + resource)).release();

            route.blackholeResponses();
            CompletableFuture<LockLease> waiting = lossy.acquireAsync(LockRequest.builder(resource)
                    .waitTimeout(Duration.ofSeconds(120))
                    .build());
            await("the waiter's create to be applied")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> queueSize(reader, resource) == 2);
            // The create's answer is lost with the connection; every look for the node fails while cut.
            route.cut();
            assertThat(waiting.cancel(true)).isTrue();
            // Cut for longer than a few reconnection attempts (up to 1 s apart), well inside the
            // session's 30 s timeout: the attempt and its clean-up both meet the failure.
            Thread.sleep(3_000);
            route.restore();

            await("the cancelled waiter's node to go")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> queueSize(reader, resource) == 1);
            held.release();
            try (LockLease next = holder.acquire(LockRequest.builder(resource)
                    .waitTimeout(Duration.ofSeconds(30))
                    .build())) {
                assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            }
        }
    }

    /**
     * A holder learns that its node was deleted through a watch, and ZooKeeper sets a watch only
     * with its answer: when that answer is lost with the connection, the watch must be set again,
     * or a force-release is never noticed and the lease stays valid while another holds the lock.
     * The watch is sent just before the lease is handed over, so answers lost from that moment
     * lose it in most rounds.
     */
    @Test
    void aHolderWhoseWatchLostItsAnswerStillLearnsOfAForceRelease() throws Exception {
        for (int round = 0; round < 5; round++) {
            String resource = "watch-lost-" + round;
            try (FaultProxy route = proxyToFirstMember();
                    LockClient admin = LockClient.builder(direct()).build();
                    LockClient lossy = LockClient.builder(through(route)).build()) {
                lossy.acquire(LockRequest.of("warm-up-" + resource)).release();
                LockLease held = lossy.acquire(LockRequest.of(resource));
                route.blackholeResponses();
                CompletableFuture<?> lost = new CompletableFuture<>();
                held.onLost(cause -> lost.complete(null));
                ZooKeeperLockBackend administration = (ZooKeeperLockBackend) admin.backend();
                assertThat(administration
                                .forceRelease(ResourceName.of(resource, 255))
                                .get(30, TimeUnit.SECONDS))
                        .isPresent();
                route.restore();

                lost.get(30, TimeUnit.SECONDS);
                assertThat(held.isValid()).as("round " + round).isFalse();
            }
        }
    }

    private static ZooKeeperLockBackend direct() {
        return ZooKeeperLockBackend.builder()
                .connectString(zookeeper.connectString())
                .build();
    }

    private static FaultProxy proxyToFirstMember() {
        return FaultProxy.start(
                "127.0.0.1", zookeeper.ensemble().members().get(0).clientPort());
    }

    /** A backend whose every request and answer goes through {@code route}. */
    private static ZooKeeperLockBackend through(FaultProxy route) {
        return ZooKeeperLockBackend.builder()
                .connectString("127.0.0.1:" + route.port())
                .build();
    }

    private static int queueSize(ZooKeeperLockBackend reader, String resource) throws Exception {
        return reader.queue(ResourceName.of(resource, 255))
                .get(30, TimeUnit.SECONDS)
                .size();
    }
}
