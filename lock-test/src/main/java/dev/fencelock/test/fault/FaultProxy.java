package dev.fencelock.test.fault;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on 127.0.0.1 that forwards to one target and can be told to lose traffic, so tests can put a
 * client on the far side of a broken network without root rights or firewall rules.
 *
 * <p>The modes map to the failures a lock client must survive:
 *
 * <ul>
 *   <li>{@link #restore()}: forward both ways;
 *   <li>{@link #cut()}: every connection is closed now and new ones are closed as soon as they are accepted, like a
 *       crashed or firewalled server that answers with resets;
 *   <li>{@link #blackholeResponses()}: requests still reach the server but its answers vanish, the case where a
 *       write was committed yet the client never learns it;
 *   <li>{@link #blackhole()}: bytes vanish both ways while sockets stay open, a partition that produces no errors,
 *       only silence.
 * </ul>
 *
 * <p>Modes may be switched at any time while traffic flows; the switch applies from the next chunk read. A
 * connection that lost bytes carries a corrupted stream (HTTP/2 frames cut in half), so {@link #restore()} closes
 * such connections and clients reconnect cleanly, as they would after a real partition outlived their keep-alive.
 * Each connection uses two daemon threads and one bounded buffer per direction.
 */
public final class FaultProxy implements AutoCloseable {

    private static final int BUFFER_BYTES = 16 * 1024;
    private static final int CONNECT_TIMEOUT_MILLIS = 2_000;

    private enum Mode {
        FORWARD(false, false),
        CUT(true, true),
        BLACKHOLE_RESPONSES(false, true),
        BLACKHOLE(true, true);

        private final boolean dropsRequests;
        private final boolean dropsResponses;

        Mode(boolean dropsRequests, boolean dropsResponses) {
            this.dropsRequests = dropsRequests;
            this.dropsResponses = dropsResponses;
        }

        boolean drops(boolean request) {
            return request ? dropsRequests : dropsResponses;
        }
    }

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket listener;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicInteger connectionNumbers = new AtomicInteger();
    private volatile Mode mode = Mode.FORWARD;
    private volatile boolean closed;

    private FaultProxy(String targetHost, int targetPort, ServerSocket listener) {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = listener;
    }

    /** Starts forwarding from a fresh port on 127.0.0.1 to {@code targetHost:targetPort}. */
    public static FaultProxy start(String targetHost, int targetPort) {
        if (targetPort < 1 || targetPort > 65_535) {
            throw new IllegalArgumentException("not a TCP port: " + targetPort);
        }
        try {
            ServerSocket listener = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
            FaultProxy proxy = new FaultProxy(targetHost, targetPort, listener);
            daemon(proxy::acceptLoop, "fault-proxy-" + listener.getLocalPort() + "-accept")
                    .start();
            return proxy;
        } catch (IOException e) {
            throw new UncheckedIOException("could not open a proxy port on 127.0.0.1", e);
        }
    }

    /** Starts a proxy in front of an endpoint such as {@code http://127.0.0.1:2379}, the form etcd clients use. */
    public static FaultProxy forEndpoint(String endpoint) {
        URI uri = URI.create(endpoint);
        if (uri.getHost() == null || uri.getPort() < 0) {
            throw new IllegalArgumentException("endpoint needs a host and an explicit port: " + endpoint);
        }
        return start(uri.getHost(), uri.getPort());
    }

    /** The port clients connect to. */
    public int port() {
        return listener.getLocalPort();
    }

    /** The URL clients use instead of the target's, {@code http://127.0.0.1:<port>}. */
    public String endpoint() {
        return "http://127.0.0.1:" + port();
    }

    /** Forwards both ways again, closing connections that lost bytes (or a close) while traffic was dropped. */
    public void restore() {
        mode = Mode.FORWARD;
        connections.stream().filter(Connection::lostTraffic).forEach(Connection::close);
    }

    /** Closes every open connection now and each new one as soon as it is accepted, until {@link #restore()}. */
    public void cut() {
        mode = Mode.CUT;
        connections.forEach(Connection::close);
    }

    /** Forwards client bytes to the target but silently drops everything the target sends back. */
    public void blackholeResponses() {
        mode = Mode.BLACKHOLE_RESPONSES;
    }

    /** Silently drops bytes in both directions while keeping every socket open. */
    public void blackhole() {
        mode = Mode.BLACKHOLE;
    }

    /** How many client connections the proxy has accepted, including those it closed at once while cut. */
    public long connectionsAccepted() {
        return accepted.get();
    }

    /** How many client connections are open right now. */
    public int openConnections() {
        return connections.size();
    }

    /** Stops listening and closes every connection. Calling it again does nothing. */
    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        connections.forEach(Connection::close);
    }

    @Override
    public String toString() {
        return "FaultProxy[" + endpoint() + " -> " + targetHost + ":" + targetPort + ", " + mode + "]";
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue;
            }
            accepted.incrementAndGet();
            if (mode == Mode.CUT || closed) {
                closeQuietly(client);
                continue;
            }
            Connection connection = new Connection(client, connectionNumbers.incrementAndGet());
            connections.add(connection);
            // cut() or close() may have swept the set just before this connection joined it.
            if (mode == Mode.CUT || closed) {
                connection.close();
                continue;
            }
            daemon(connection::run, connection.threadName("request")).start();
        }
    }

    private static Thread daemon(Runnable body, String name) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        return thread;
    }

    private static void closeQuietly(Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException e) {
            // Closing is how faults are injected; a socket that is already broken needs nothing more.
        }
    }

    /** One client connection and its connection to the target. */
    private final class Connection {

        private final Socket client;
        private final Socket server = new Socket();
        private final int number;
        private final AtomicBoolean closedOnce = new AtomicBoolean();
        private final AtomicBoolean lostTraffic = new AtomicBoolean();
        private final AtomicInteger finishedDirections = new AtomicInteger();

        Connection(Socket client, int number) {
            this.client = client;
            this.number = number;
        }

        String threadName(String direction) {
            return "fault-proxy-" + port() + "-" + number + "-" + direction;
        }

        boolean lostTraffic() {
            return lostTraffic.get();
        }

        void run() {
            try {
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                server.connect(new InetSocketAddress(targetHost, targetPort), CONNECT_TIMEOUT_MILLIS);
            } catch (IOException e) {
                // The target refused: the client sees its connection closed, as it would without the proxy.
                close();
                return;
            }
            daemon(() -> pump(server, client, false), threadName("response")).start();
            pump(client, server, true);
        }

        private void pump(Socket from, Socket to, boolean request) {
            byte[] buffer = new byte[BUFFER_BYTES];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int read;
                while ((read = in.read(buffer)) != -1) {
                    forward(buffer, read, out, request);
                }
                endOfStream(to, request);
            } catch (IOException e) {
                close();
            }
        }

        private void forward(byte[] buffer, int length, OutputStream out, boolean request) throws IOException {
            Mode current = mode;
            if (current == Mode.CUT) {
                close();
            } else if (current.drops(request)) {
                recordLoss();
            } else {
                out.write(buffer, 0, length);
                out.flush();
            }
        }

        private void endOfStream(Socket to, boolean request) throws IOException {
            // A FIN is a packet too: while this direction is dropped it vanishes like the data.
            if (mode.drops(request)) {
                recordLoss();
            } else if (!to.isClosed()) {
                to.shutdownOutput();
            }
            if (finishedDirections.incrementAndGet() == 2) {
                close();
            }
        }

        private void recordLoss() {
            lostTraffic.set(true);
            // restore() may have swept the connections between this pump reading the mode and recording the loss.
            if (mode == Mode.FORWARD) {
                close();
            }
        }

        void close() {
            if (closedOnce.compareAndSet(false, true)) {
                closeQuietly(client);
                closeQuietly(server);
                connections.remove(this);
            }
        }
    }
}
