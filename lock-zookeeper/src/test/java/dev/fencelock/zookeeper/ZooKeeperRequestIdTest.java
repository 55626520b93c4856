package dev.fencelock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.LockClient;
import dev.fencelock.LockException;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.test.zookeeper.ZooKeeperEnsemble;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A request id names one acquisition: another client's use of it is refused at once, as on every backend. */
class ZooKeeperRequestIdTest {

    private static ZooKeeperEnsemble ensemble;

    @BeforeAll
    static void start() {
        ensemble = ZooKeeperEnsemble.standalone();
    }

    @AfterAll
    static void stop() {
        if (ensemble != null) {
            ensemble.close();
        }
    }

    @Test
    void aRequestIdInUseByAnotherClientIsRefusedAtOnceAndLeavesNoNode() throws Exception {
        ZooKeeperLockBackend first = ZooKeeperLockBackend.builder()
                .connectString(ensemble.connectString())
                .build();
        try (LockClient a = LockClient.builder(first).build();
                LockClient b = LockClient.builder(ZooKeeperLockBackend.builder()
                                .connectString(ensemble.connectString())
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
}
