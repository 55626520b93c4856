package dev.fencelock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockEventListener;
import dev.fencelock.LockLease;
import dev.fencelock.ResourceName;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * An application whose etcd is not running starts (etcd may come later), but says so at once
 * instead of letting the first locked call find out after its whole wait time.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockStoreStartupCheckTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(FenceLockEtcdAutoConfiguration.class, FenceLockAutoConfiguration.class))
            .withPropertyValues("fencelock.health.timeout=1s");

    @Test
    void startupWithoutEtcdShouldWarnNamingTheEndpointAndTheRefusedConnection(CapturedOutput output)
            throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String endpoint = "http://127.0.0.1:" + port;
        this.runner.withPropertyValues("fencelock.etcd.endpoints=" + endpoint).run((context) -> {
            assertThat(context).hasNotFailed();
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(output.getOut())
                            .contains("WARN")
                            .contains(endpoint)
                            .contains("127.0.0.1:" + port + " refused the connection"));
        });
    }

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    @Test
    void startupWithAnsweringEtcdShouldOpenTheSessionBeforeTheFirstLockWithoutCountingALock() {
        List<String> events = new CopyOnWriteArrayList<>();
        this.runner
                .withPropertyValues("fencelock.etcd.endpoints=" + String.join(",", etcd.endpoints()))
                .withBean(LockEventListener.class, () -> new LockEventListener() {
                    @Override
                    public void acquired(LockLease lease, String lockName, Duration waited, boolean reentered) {
                        events.add("acquired " + lockName);
                    }

                    @Override
                    public void released(LockLease lease, String lockName, Duration held, Duration took) {
                        events.add("released " + lockName);
                    }
                })
                .run((context) -> {
                    context.getBean(LockStoreStartupCheck.class).checked().get(30, TimeUnit.SECONDS);
                    LockClient client = context.getBean(LockClient.class);
                    EtcdLockBackend backend = (EtcdLockBackend) client.backend();

                    // The session lease of the default TTL is open: the first locked call need not grant it.
                    assertThat(backend.sessions().values())
                            .singleElement()
                            .satisfies(session -> assertThat(session.locks()).isZero());
                    assertThat(backend.queue(ResourceName.of(LockStoreStartupCheck.WARM_UP_RESOURCE, 255))
                                    .get(10, TimeUnit.SECONDS))
                            .as("the warm-up lock was released")
                            .isEmpty();
                    assertThat(events)
                            .as("what meters and the audit log hear of the warm-up")
                            .isEmpty();
                    assertThat(client.heldCount()).isZero();
                });
    }

    @Test
    void startupWithAnAnsweringStoreShouldNotWarn(CapturedOutput output) {
        this.runner.withPropertyValues("fencelock.backend=in-memory").run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(LockStoreStartupCheck.class);
            context.getBean(LockStoreStartupCheck.class).checked().get();
            assertThat(output.getOut()).doesNotContain("cannot reach its lock store");
        });
    }
}
