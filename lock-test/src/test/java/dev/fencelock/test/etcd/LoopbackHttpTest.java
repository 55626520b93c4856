package dev.fencelock.test.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A member restarted or paused by a fault can answer a probe's headers and then never send the
 * body. The probe's timeout must still end the call: a launcher that waits forever on one member's
 * health stalls every test and model run that restarts members.
 */
class LoopbackHttpTest {

    @Test
    void aBodyThatNeverComesEndsAtTheTimeout() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Socket> accepted = CompletableFuture.supplyAsync(() -> answerHeadersOnly(server));
            String url = "http://127.0.0.1:" + server.getLocalPort() + "/health";

            // The call runs on another thread so that a regression fails this test instead of hanging it.
            CompletableFuture<Throwable> call = CompletableFuture.supplyAsync(() -> {
                try {
                    LoopbackHttp.PLAIN.http("GET", url, null, Duration.ofMillis(500));
                    return null;
                } catch (IOException ex) {
                    return ex;
                }
            });

            // A limit for a broken run: the call gives up after 500 ms on a healthy one.
            assertThat(call.get(30, TimeUnit.SECONDS))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("/health");
            accepted.get(30, TimeUnit.SECONDS).close();
        }
    }

    @Test
    void aWholeAnswerIsReturned() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture.runAsync(() -> answerWhole(server));

            assertThat(LoopbackHttp.PLAIN.http(
                            "GET",
                            "http://127.0.0.1:" + server.getLocalPort() + "/health",
                            null,
                            Duration.ofSeconds(30)))
                    .isEqualTo("{\"health\":\"true\"}");
        }
    }

    @Test
    void aRefusedConnectionIsAnIoException() throws Exception {
        int port;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort();
        }
        assertThatThrownBy(() -> LoopbackHttp.PLAIN.http(
                        "GET", "http://127.0.0.1:" + port + "/health", null, Duration.ofSeconds(5)))
                .isInstanceOf(IOException.class);
    }

    private static Socket answerHeadersOnly(ServerSocket server) {
        try {
            Socket socket = server.accept();
            OutputStream out = socket.getOutputStream();
            out.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"he"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return socket; // kept open, the rest of the body never sent
        } catch (IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    private static void answerWhole(ServerSocket server) {
        try (Socket socket = server.accept()) {
            byte[] request = new byte[4096];
            socket.getInputStream().read(request);
            String body = "{\"health\":\"true\"}";
            socket.getOutputStream()
                    .write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length()
                                    + "\r\nConnection: close\r\n\r\n" + body)
                            .getBytes(StandardCharsets.US_ASCII));
        } catch (IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }
}
