package dev.fencelock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.LockClient;
import dev.fencelock.LockException;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.test.zookeeper.ZooKeeperEnsembleExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A lease TTL is a session timeout on ZooKeeper: one the servers will not grant is refused, never bent. */
class ZooKeeperLeaseTtlTest {

    @RegisterExtension
    static final ZooKeeperEnsembleExtension zookeeper = ZooKeeperEnsembleExtension.of(1, "maxSessionTimeout=5000");

    private static LockClient client;

    private static ZooKeeperLockBackend backend;

    @BeforeAll
    static void start() {
        backend = ZooKeeperLockBackend.builder()
                .connectString(zookeeper.connectString())
                .administrationSessionTimeout(Duration.ofSeconds(3))
                .build();
        client = LockClient.builder(backend).build();
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
    }

    @Test
    void aLeaseTtlAboveTheServersMaximumSessionIsRefusedNamingBoth() throws Exception {
        assertThatThrownBy(() -> client.acquire(LockRequest.builder("ttl:long")
                        .leaseTtl(Duration.ofSeconds(10))
                        .build()))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("lease TTL of 10 s")
                .hasMessageContaining("allows 5000 ms")
                .hasMessageContaining("maxSessionTimeout");
        assertThat(backend.queue(ResourceName.of("ttl:long", ResourceName.DEFAULT_MAX_LENGTH))
                        .get(30, TimeUnit.SECONDS))
                .isEmpty();
    }

    @Test
    void eachLeaseTtlWithinTheServersBoundsGetsASessionOfItsOwn() {
        try (LockLease short1 = client.acquire(LockRequest.builder("ttl:a")
                        .leaseTtl(Duration.ofSeconds(2))
                        .build());
                LockLease longer = client.acquire(LockRequest.builder("ttl:b")
                        .leaseTtl(Duration.ofSeconds(5))
                        .build())) {
            assertThat(short1.leaseId()).isNotEqualTo(longer.leaseId());
            assertThat(short1.isFencing()).isTrue();
        }
    }
}
