package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockRequest;
import dev.fencelock.spi.BackendHealth;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * No etcd where the endpoints point: jetcd waits for a connection instead of failing, so without
 * help a locked call only learns that etcd "did not answer". The errors must name the refused
 * connection, so that a first-time user sees at once that etcd is not running.
 */
class EtcdUnreachableTest {

    private String endpoint;

    private LockClient client;

    @BeforeEach
    void pointAtAClosedPort() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        this.endpoint = "http://127.0.0.1:" + port;
        this.client = LockClient.builder(
                        EtcdLockBackend.builder().endpoints(this.endpoint).build())
                .build();
    }

    @AfterEach
    void close() {
        this.client.close();
    }

    @Test
    void aLockedCallNamesTheRefusedConnectionAndSaysNothingWasGranted() {
        assertThatExceptionOfType(LockBackendUnavailableException.class)
                .isThrownBy(() -> this.client.acquire(LockRequest.builder("order:1")
                        .waitTimeout(Duration.ofSeconds(2))
                        .build()))
                .withMessageContaining(this.endpoint)
                .withMessageContaining("nothing was granted")
                .withMessageContaining("127.0.0.1:" + this.endpoint.substring(this.endpoint.lastIndexOf(':') + 1)
                        + " refused the connection");
    }

    @Test
    void healthNamesTheRefusedConnection() throws Exception {
        BackendHealth health = this.client
                .administration()
                .orElseThrow()
                .health(Duration.ofSeconds(1))
                .get(30, TimeUnit.SECONDS);
        assertThat(health.up()).isFalse();
        assertThat(String.valueOf(health.details().get("error"))).contains("refused the connection");
    }
}
