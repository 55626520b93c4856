package dev.fencelock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.QueueEntry;
import dev.fencelock.test.fault.FaultProxy;
import dev.fencelock.test.zookeeper.ZooKeeperEnsembleExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** An operator's reads of a queue survive a connection that lost their answers: they are read again. */
class ZooKeeperAdministrationTest {

    @RegisterExtension
    static final ZooKeeperEnsembleExtension zookeeper = ZooKeeperEnsembleExtension.members(1);

    @Test
    void aForceReleaseAndAQueueReadWhoseAnswersWereLostAreReadAgain() throws Exception {
        try (FaultProxy route = FaultProxy.start(
                        "127.0.0.1", zookeeper.ensemble().members().get(0).clientPort());
                LockClient holder = LockClient.builder(ZooKeeperLockBackend.builder()
                                .connectString(zookeeper.connectString())
                                .build())
                        .build()) {
            ZooKeeperLockBackend operator = ZooKeeperLockBackend.builder()
                    .connectString("127.0.0.1:" + route.port())
                    .build();
            try (LockClient operatorClient = LockClient.builder(operator).build()) {
                LockLease held = holder.acquire(LockRequest.builder("administered")
                        .waitTimeout(Duration.ofSeconds(30))
                        .build());
                // Opens the operator's session first, so that what loses its answers is the reads.
                assertThat(operator.queue(ResourceName.of("administered", 255)).get(30, TimeUnit.SECONDS))
                        .hasSize(1);

                route.blackholeResponses();
                CompletableFuture<Optional<QueueEntry>> nothing =
                        operator.forceRelease(ResourceName.of("nothing-held", 255));
                CompletableFuture<List<QueueEntry>> queue = operator.queue(ResourceName.of("administered", 255));
                // The requests reach the server, their answers do not; then the connection is reset.
                await().during(Duration.ofMillis(300))
                        .atMost(Duration.ofSeconds(5))
                        .until(() -> !nothing.isDone() && !queue.isDone());
                route.restore();

                assertThat(nothing.get(30, TimeUnit.SECONDS)).isEmpty();
                assertThat(queue.get(30, TimeUnit.SECONDS))
                        .singleElement()
                        .satisfies(entry -> assertThat(entry.fencingToken()).isEqualTo(held.fencingToken()));
                assertThat(held.isValid()).isTrue();
            }
        }
    }
}
