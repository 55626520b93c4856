package dev.fencelock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.test.fault.FaultProxy;
import dev.fencelock.test.zookeeper.ZooKeeperEnsembleExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Closing a client ends every acquisition it still has in flight, whatever state the acquisition is in. */
class ZooKeeperCloseTest {

    @RegisterExtension
    static final ZooKeeperEnsembleExtension zookeeper = ZooKeeperEnsembleExtension.members(1);

    @Test
    void closingEndsAnAcquisitionThatWaitsForAHeldLock() throws Exception {
        try (LockClient holder = client(zookeeper.connectString());
                LockLease held = holder.acquire(request("held"))) {
            LockClient waiter = client(zookeeper.connectString());
            CompletableFuture<LockLease> waiting = waiter.acquireAsync(request("held"));
            Thread.sleep(500);
            waiter.close();

            assertThat(waiting).failsWithin(Duration.ofSeconds(20));
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void closingEndsAnAcquisitionWhoseAnswersAreLost() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(
                "127.0.0.1", zookeeper.ensemble().members().get(0).clientPort())) {
            LockClient client = client("127.0.0.1:" + proxy.port());
            // The session opens, then every answer is dropped: the create is sent and applied, its answer never
            // comes, and the acquisition asks again and again whether its node exists.
            client.acquire(request("warm-up")).release();
            proxy.blackholeResponses();
            CompletableFuture<LockLease> pending = client.acquireAsync(request("answers-lost"));
            Thread.sleep(3_000);
            client.close();

            assertThat(pending).failsWithin(Duration.ofSeconds(20));
        }
    }

    private static LockClient client(String connectString) {
        return LockClient.builder(ZooKeeperLockBackend.builder()
                        .connectString(connectString)
                        .build())
                .build();
    }

    private static LockRequest request(String resource) {
        return LockRequest.builder(resource)
                .leaseTtl(Duration.ofSeconds(2))
                .waitTimeout(Duration.ofSeconds(120))
                .build();
    }
}
