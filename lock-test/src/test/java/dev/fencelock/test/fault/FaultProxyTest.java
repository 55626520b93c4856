package dev.fencelock.test.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.fencelock.test.etcd.EtcdCluster;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FaultProxyTest {

    /** A give-up time for a loopback round trip: a loaded machine may take seconds. */
    private static final int READ_TIMEOUT_MILLIS = 10_000;

    private static final int SILENCE_MILLIS = 300;

    private final List<Socket> clients = new CopyOnWriteArrayList<>();
    private EchoServer echo;
    private FaultProxy proxy;

    @BeforeEach
    void startProxyInFrontOfAnEchoServer() throws IOException {
        echo = EchoServer.start();
        proxy = FaultProxy.start("127.0.0.1", echo.port());
    }

    @AfterEach
    void stopEverything() throws IOException {
        for (Socket client : clients) {
            client.close();
        }
        proxy.close();
        echo.close();
    }

    @Test
    void forwardsBothWaysInNormalMode() throws IOException {
        Socket client = connect();

        assertThat(roundTrip(client, "hello")).isEqualTo("hello");
        assertThat(roundTrip(client, "again")).isEqualTo("again");
        assertThat(proxy.endpoint()).isEqualTo("http://127.0.0.1:" + proxy.port());
        assertThat(proxy.connectionsAccepted()).isEqualTo(1);
        assertThat(proxy.openConnections()).isEqualTo(1);
    }

    @Test
    void cutClosesOpenConnectionsAndEveryNewOneUntilRestored() throws IOException {
        Socket open = connect();
        assertThat(roundTrip(open, "before")).isEqualTo("before");

        proxy.cut();

        assertClosedByProxy(open);
        assertClosedByProxy(connect());
        assertThat(proxy.connectionsAccepted()).isEqualTo(2);

        proxy.restore();

        assertThat(roundTrip(connect(), "after")).isEqualTo("after");
    }

    @Test
    void blackholedResponsesLetRequestsThroughButNoAnswerBack() throws IOException {
        Socket client = connect();
        assertThat(roundTrip(client, "warm-up")).isEqualTo("warm-up");

        proxy.blackholeResponses();
        send(client, "committed");

        await("target received the request")
                .atMost(Duration.ofSeconds(30))
                .until(() -> echo.received().contains("committed"));
        assertNothingArrives(client);

        proxy.restore();

        assertClosedByProxy(client);
        assertThat(roundTrip(connect(), "fresh")).isEqualTo("fresh");
    }

    @Test
    void blackholeDropsBothWaysWhileTheConnectionStaysOpen() throws IOException {
        Socket client = connect();
        assertThat(roundTrip(client, "warm-up")).isEqualTo("warm-up");

        proxy.blackhole();
        send(client, "vanishes");

        assertNothingArrives(client);
        // A window for a lost request to show up; a slow machine can only hide one, never fail this.
        await("target never sees the request")
                .during(Duration.ofMillis(SILENCE_MILLIS))
                .atMost(Duration.ofSeconds(30))
                .until(() -> !echo.received().contains("vanishes"));
        assertThat(proxy.openConnections()).isEqualTo(1);
        assertThat(client.isClosed()).isFalse();

        proxy.restore();

        assertThat(roundTrip(connect(), "healed")).isEqualTo("healed");
    }

    @Test
    void switchingModesUnderTrafficLeavesTheProxyWorkingAndLeaksNoConnection() throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        ExecutorService traffic = Executors.newFixedThreadPool(3);
        try {
            List<Future<?>> senders = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                senders.add(traffic.submit(() -> sendUntilStopped(running)));
            }
            for (int round = 0; round < 50; round++) {
                proxy.blackholeResponses();
                proxy.blackhole();
                proxy.cut();
                proxy.restore();
            }
            running.set(false);
            for (Future<?> sender : senders) {
                sender.get(30, TimeUnit.SECONDS);
            }
        } finally {
            traffic.shutdownNow();
        }

        assertThat(roundTrip(connect(), "still works")).isEqualTo("still works");
        clients.forEach(FaultProxyTest::closeQuietly);
        await("every proxied connection closed")
                .atMost(Duration.ofSeconds(30))
                .until(() -> proxy.openConnections() == 0);
    }

    @Test
    void forwardsToEtcdHealthUntilCut() throws IOException, InterruptedException {
        HttpClient http =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (EtcdCluster etcd = EtcdCluster.start(1);
                FaultProxy etcdProxy = FaultProxy.forEndpoint(etcd.endpoints().get(0))) {
            HttpRequest health = HttpRequest.newBuilder(URI.create(etcdProxy.endpoint() + "/health"))
                    .timeout(Duration.ofSeconds(30))
                    .build();

            assertThat(http.send(health, HttpResponse.BodyHandlers.ofString()).body())
                    .contains("\"health\":\"true\"");

            etcdProxy.cut();

            assertThatThrownBy(() -> http.send(health, HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(IOException.class);

            etcdProxy.restore();

            assertThat(http.send(health, HttpResponse.BodyHandlers.ofString()).statusCode())
                    .isEqualTo(200);
            assertThat(etcdProxy.connectionsAccepted()).isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void anEndpointNeedsAnExplicitPort() {
        assertThatThrownBy(() -> FaultProxy.forEndpoint("http://127.0.0.1"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private void sendUntilStopped(AtomicBoolean running) {
        @Nullable Socket client = null;
        for (int i = 0; i < 10_000 && running.get(); i++) {
            try {
                if (client == null) {
                    client = connect();
                    client.setSoTimeout(200);
                }
                roundTrip(client, "message-" + i);
            } catch (IOException e) {
                // Expected while the proxy cuts or drops: start over on a fresh connection.
                closeQuietly(client);
                client = null;
            }
        }
        closeQuietly(client);
    }

    private Socket connect() throws IOException {
        Socket client = new Socket("127.0.0.1", proxy.port());
        client.setSoTimeout(READ_TIMEOUT_MILLIS);
        clients.add(client);
        return client;
    }

    private static void send(Socket client, String message) throws IOException {
        client.getOutputStream().write(message.getBytes(StandardCharsets.UTF_8));
        client.getOutputStream().flush();
    }

    private static String roundTrip(Socket client, String message) throws IOException {
        send(client, message);
        byte[] answer = new byte[message.getBytes(StandardCharsets.UTF_8).length];
        InputStream in = client.getInputStream();
        int filled = 0;
        while (filled < answer.length) {
            int read = in.read(answer, filled, answer.length - filled);
            if (read == -1) {
                throw new IOException("connection closed after " + filled + " bytes");
            }
            filled += read;
        }
        return new String(answer, StandardCharsets.UTF_8);
    }

    private static void assertClosedByProxy(Socket client) throws IOException {
        client.setSoTimeout(READ_TIMEOUT_MILLIS);
        try {
            assertThat(client.getInputStream().read()).as("end of stream").isEqualTo(-1);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("connection still open " + READ_TIMEOUT_MILLIS + " ms after the proxy cut it", e);
        } catch (SocketException e) {
            // A reset is another way of being closed.
        }
    }

    private static void assertNothingArrives(Socket client) throws IOException {
        client.setSoTimeout(SILENCE_MILLIS);
        assertThatThrownBy(() -> client.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
        client.setSoTimeout(READ_TIMEOUT_MILLIS);
    }

    private static void closeQuietly(@Nullable Socket socket) {
        if (socket == null) {
            return;
        }
        try {
            socket.close();
        } catch (IOException e) {
            // Already broken by the proxy.
        }
    }
}
