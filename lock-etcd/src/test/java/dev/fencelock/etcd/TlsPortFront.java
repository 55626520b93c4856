package dev.fencelock.etcd;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A port on 127.0.0.1 in front of an etcd member that serves TLS, answering as that port does on a
 * slow or busy machine: a connection that does not open with a TLS handshake is dropped, either with
 * a reset (as etcd does when some of the client's bytes are still unread) or with an orderly close;
 * a TLS connection is forwarded to etcd, but only after {@code handshakeDelay}, as a loaded machine
 * answers late. Counts the connections it dropped.
 */
final class TlsPortFront implements AutoCloseable {

    private static final int TLS_HANDSHAKE_RECORD = 0x16;

    private static final int HTTP2_PREFACE_BYTES = 24;

    private static final int HTTP2_FRAME_HEADER_BYTES = 9;

    private static final int HTTP2_WINDOW_UPDATE = 0x8;

    private final URI target;

    private final boolean reset;

    private final Duration handshakeDelay;

    private final ServerSocket listener;

    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private final AtomicInteger dropped = new AtomicInteger();

    private TlsPortFront(URI target, boolean reset, Duration handshakeDelay) throws IOException {
        this.target = target;
        this.reset = reset;
        this.handshakeDelay = handshakeDelay;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon(this::accept, "tls-front-accept").start();
    }

    /** Drops plain-text connections with a reset, and forwards TLS ones after {@code handshakeDelay}. */
    static TlsPortFront resetting(String httpsEndpoint, Duration handshakeDelay) {
        return start(httpsEndpoint, true, handshakeDelay);
    }

    /** Drops plain-text connections with an orderly close, and forwards TLS ones after {@code handshakeDelay}. */
    static TlsPortFront closing(String httpsEndpoint, Duration handshakeDelay) {
        return start(httpsEndpoint, false, handshakeDelay);
    }

    private static TlsPortFront start(String httpsEndpoint, boolean reset, Duration handshakeDelay) {
        try {
            return new TlsPortFront(URI.create(httpsEndpoint), reset, handshakeDelay);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** This port as a plain-text endpoint, the way a client that forgot TLS names it. */
    String plainTextEndpoint() {
        return "http://127.0.0.1:" + this.listener.getLocalPort();
    }

    /** How many plain-text connections were dropped so far. */
    int droppedConnections() {
        return this.dropped.get();
    }

    @Override
    public void close() {
        closeQuietly(this.listener);
        this.sockets.forEach(TlsPortFront::closeQuietly);
    }

    private void accept() {
        while (!this.listener.isClosed()) {
            try {
                Socket client = this.listener.accept();
                this.sockets.add(client);
                daemon(() -> serve(client), "tls-front-connection").start();
            } catch (IOException ex) {
                return; // closed
            }
        }
    }

    private void serve(Socket client) {
        try {
            int first = client.getInputStream().read();
            if (first < 0) {
                closeQuietly(client);
            } else if (first != TLS_HANDSHAKE_RECORD) {
                drop(client);
            } else {
                TimeUnit.NANOSECONDS.sleep(this.handshakeDelay.toNanos()); // the slow machine this stands for
                Socket server = new Socket();
                this.sockets.add(server);
                server.connect(new InetSocketAddress(this.target.getHost(), this.target.getPort()));
                server.getOutputStream().write(first);
                daemon(() -> pump(server, client), "tls-front-answers").start();
                pump(client, server);
            }
        } catch (IOException ex) {
            closeQuietly(client);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            closeQuietly(client);
        }
    }

    private void drop(Socket client) throws IOException {
        this.dropped.incrementAndGet();
        readFirstFlight(client.getInputStream());
        if (this.reset) {
            client.setSoLinger(true, 0); // closing now sends a reset
            client.close();
            return;
        }
        // An orderly close: the client reads the end of the stream, whatever it sent is read and discarded.
        client.shutdownOutput();
        InputStream in = client.getInputStream();
        while (in.read(new byte[4096]) >= 0) {
            // discard
        }
        client.close();
    }

    /**
     * Reads what a jetcd client sends before it waits for the server: HTTP/2's preface, then its
     * SETTINGS and the WINDOW_UPDATE that widens the connection's window, written in turns that may lie
     * a second apart on a cold JVM. Dropped after that, the client meets the drop reading, never
     * writing, as it meets etcd's.
     */
    private static void readFirstFlight(InputStream in) throws IOException {
        in.readNBytes(HTTP2_PREFACE_BYTES - 1);
        while (true) {
            byte[] header = in.readNBytes(HTTP2_FRAME_HEADER_BYTES);
            if (header.length < HTTP2_FRAME_HEADER_BYTES) {
                return;
            }
            int length = ((header[0] & 0xff) << 16) | ((header[1] & 0xff) << 8) | (header[2] & 0xff);
            in.readNBytes(length);
            if (header[3] == HTTP2_WINDOW_UPDATE) {
                return;
            }
        }
    }

    private static void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException ex) {
            // either side closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static Thread daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    private static void closeQuietly(java.io.Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
