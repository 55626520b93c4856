package dev.fencelock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockException;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.test.fault.FaultProxy;
import dev.fencelock.test.zookeeper.ZooKeeperEnsembleExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A request id names one acquisition: another client's use of it is refused at once, as on every backend. */
class ZooKeeperRequestIdTest {

    @RegisterExtension
    static final ZooKeeperEnsembleExtension zookeeper = ZooKeeperEnsembleExtension.members(1);

    @Test
    void aRequestIdInUseByAnotherClientIsRefusedAtOnceAndLeavesNoNode() throws Exception {
        ZooKeeperLockBackend first = ZooKeeperLockBackend.builder()
                .connectString(zookeeper.connectString())
                .build();
        try (LockClient a = LockClient.builder(first).build();
                LockClient b = LockClient.builder(ZooKeeperLockBackend.builder()
                                .connectString(zookeeper.connectString())
                                .build())
                        .build()) {
            LockRequest request = LockRequest.builder("shared-id")
                    .requestId("order-7")
                    .waitTimeout(Duration.ofSeconds(60))
                    .build();
            try (LockLease held = a.acquire(request)) {
                long started = System.nanoTime();
                assertThatThrownBy(() -> b.acquire(request))
                        .isInstanceOf(LockException.class)
                        .hasMessageContaining("'order-7'")
                        .hasMessageContaining("in use by another session");
                // Refused on its first read, not after its 60 s wait: a hang guard, far from either.
                assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
                assertThat(first.queue(ResourceName.of("shared-id", 255)).get(30, TimeUnit.SECONDS))
                        .singleElement()
                        .satisfies(entry -> assertThat(entry.fencingToken()).isEqualTo(held.fencingToken()));
            }
        }
    }

    /**
     * A release whose answer was lost is sent again later, deleting its node by name. ZooKeeper
     * deletes an empty resource node (a container), and its sequence numbers start again when it is
     * created anew: the next acquisition with the same request id must not get the released node's
     * name, or that late delete takes the new holder's lock away.
     */
    @Test
    void aLateDeleteOfAReleasedNodeCannotTakeALaterAcquisitionOfTheSameRequestId() throws Exception {
        ZooKeeperLockBackend backend = ZooKeeperLockBackend.builder()
                .connectString(zookeeper.connectString())
                .build();
        String resource = backend.resourcePath("reused-id");
        LockRequest request = LockRequest.builder("reused-id")
                .requestId("order-42")
                .waitTimeout(Duration.ofSeconds(60))
                .build();
        try (LockClient client = LockClient.builder(backend).build();
                ZooKeeper plain = connect()) {
            String released;
            try (LockLease first = client.acquire(request)) {
                released = resource + "/" + plain.getChildren(resource, false).get(0);
            }
            // What ZooKeeper's container manager does within a minute of the node becoming empty.
            plain.delete(resource, -1);

            try (LockLease second = client.acquire(request)) {
                String held =
                        resource + "/" + plain.getChildren(resource, false).get(0);
                assertThat(held).isNotEqualTo(released);

                // The first release's delete, sent again after its answer was lost, as the backend does.
                assertThatThrownBy(() -> plain.delete(released, -1))
                        .isInstanceOf(KeeperException.NoNodeException.class);
                assertThat(plain.exists(held, false)).isNotNull();
                assertThat(second.isValid()).isTrue();
            }
        }
    }

    /**
     * A second acquisition of one client with a waiting acquisition's request id joins it, as on
     * etcd: one node in the queue, and both callers get the lock with one token when it comes.
     */
    @Test
    void aSecondWaitingAcquisitionOfOneRequestIdJoinsTheFirst() throws Exception {
        ZooKeeperLockBackend backend = ZooKeeperLockBackend.builder()
                .connectString(zookeeper.connectString())
                .build();
        try (LockClient client = LockClient.builder(backend).build()) {
            LockLease holder = client.acquire(LockRequest.of("joined-id"));
            LockRequest retried = LockRequest.builder("joined-id")
                    .requestId("order-8")
                    .waitTimeout(Duration.ofSeconds(60))
                    .build();
            CompletableFuture<LockLease> first = client.acquireAsync(retried);
            CompletableFuture<LockLease> second = client.acquireAsync(retried);
            // Queued behind the holder (or, wrongly, refused).
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> first.isDone()
                            || second.isDone()
                            || backend.queue(ResourceName.of("joined-id", 255))
                                            .get(30, TimeUnit.SECONDS)
                                            .size()
                                    >= 2);
            holder.release();

            LockLease a = first.get(30, TimeUnit.SECONDS);
            LockLease b = second.get(30, TimeUnit.SECONDS);
            assertThat(a.fencingToken()).isEqualTo(b.fencingToken());
            assertThat(a.isValid()).isTrue();
            a.release();
            assertThat(b.isValid()).isTrue();
            b.release();
            assertThat(backend.queue(ResourceName.of("joined-id", 255)).get(30, TimeUnit.SECONDS))
                    .isEmpty();
        }
    }

    /**
     * A create whose answer was lost is looked for by its name's prefix, which holds the request id:
     * another session's node of that id, refused a moment later, must not hide the client's own
     * node, or that node would stay in the queue with its live session and block the lock.
     */
    @Test
    void anAcquisitionRefusedAfterALostAnswerLeavesNoNodeBehind() throws Exception {
        try (FaultProxy route = FaultProxy.start(
                "127.0.0.1", zookeeper.ensemble().members().get(0).clientPort())) {
            for (int round = 0; round < 3; round++) {
                String resource = "lost-answer-" + round;
                ZooKeeperLockBackend holding = ZooKeeperLockBackend.builder()
                        .connectString(zookeeper.connectString())
                        .build();
                try (LockClient holder = LockClient.builder(holding).build();
                        LockClient lossy = LockClient.builder(ZooKeeperLockBackend.builder()
                                        .connectString("127.0.0.1:" + route.port())
                                        .build())
                                .build()) {
                    LockRequest request = LockRequest.builder(resource)
                            .requestId("order-9")
                            .waitTimeout(Duration.ofSeconds(30))
                            .build();
                    LockLease held = holder.acquire(request);
                    // Opens the session first, so that the create is what loses its answer.
                    lossy.acquire(LockRequest.builder("warm-up-" + round)
                                    .waitTimeout(Duration.ofSeconds(30))
                                    .build())
                            .release();
                    route.blackholeResponses();
                    CompletableFuture<LockLease> refused = lossy.acquireAsync(request);
                    // The create reaches the server, its answer does not; then the connection is reset.
                    await().during(Duration.ofMillis(300))
                            .atMost(Duration.ofSeconds(5))
                            .until(() -> !refused.isDone());
                    route.restore();

                    assertThatThrownBy(() -> refused.get(30, TimeUnit.SECONDS))
                            .hasCauseInstanceOf(LockException.class)
                            .hasMessageContaining("in use by another session");
                    await().atMost(Duration.ofSeconds(30))
                            .untilAsserted(() -> assertThat(holding.queue(ResourceName.of(resource, 255))
                                            .get(30, TimeUnit.SECONDS))
                                    .singleElement()
                                    .satisfies(entry ->
                                            assertThat(entry.fencingToken()).isEqualTo(held.fencingToken())));
                    held.release();
                }
            }
        }
    }

    /** A plain client of the ensemble, connected. */
    private static ZooKeeper connect() throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper plain = new ZooKeeper(zookeeper.connectString(), 30_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        if (!connected.await(30, TimeUnit.SECONDS)) {
            plain.close();
            throw new IllegalStateException("no connection to " + zookeeper.connectString());
        }
        return plain;
    }
}
