package dev.fencelock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
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
