package dev.fencelock.test.etcd;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiPredicate;
import java.util.function.ToIntBiFunction;

/**
 * Stands in front of one member's peer port and forwards what the other members send it, unless the {@link
 * PeerNetwork} says the sender and this member are on different sides of a partition. Each accepted connection is
 * attributed to the member process that opened it, so a link can be cut in one direction without touching the
 * others.
 */
final class PeerLinkProxy implements AutoCloseable {

    private static final int BUFFER_BYTES = 16 * 1024;
    private static final int CONNECT_TIMEOUT_MILLIS = 2_000;

    private final int target;
    private final ServerSocket listener;
    private final ToIntBiFunction<Integer, Integer> origin;
    private final BiPredicate<Integer, Integer> allows;
    private final int member;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * @param member index of the member behind this proxy
     * @param target that member's peer port
     * @param origin the member index that owns a connection's far end (local port, remote port), or -1
     * @param allows whether traffic may flow from one member index to another right now
     */
    PeerLinkProxy(
            int member, int target, ToIntBiFunction<Integer, Integer> origin, BiPredicate<Integer, Integer> allows) {
        this.member = member;
        this.target = target;
        this.origin = origin;
        this.allows = allows;
        try {
            this.listener = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        } catch (IOException e) {
            throw new UncheckedIOException("could not open a peer proxy port on 127.0.0.1", e);
        }
        Thread accept = new Thread(this::acceptLoop, "etcd-peer-proxy-" + port());
        accept.setDaemon(true);
        accept.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Closes every connection that the current partition no longer allows. */
    void enforce() {
        links.stream().filter(link -> !allows.test(link.from, member)).forEach(Link::close);
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        links.forEach(Link::close);
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
            Link link = new Link(client, origin.applyAsInt(client.getLocalPort(), client.getPort()));
            links.add(link);
            // enforce() may have swept the set just before this link joined it.
            if (closed || !allows.test(link.from, member)) {
                link.close();
                continue;
            }
            Thread pump = new Thread(link::run, "etcd-peer-proxy-" + port() + "-from-" + link.from);
            pump.setDaemon(true);
            pump.start();
        }
    }

    private static void closeQuietly(Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException e) {
            // Closing is how links are cut; a broken socket needs nothing more.
        }
    }

    /** One connection from a member (or an unknown process) and its connection to the target. */
    private final class Link {

        private final Socket client;
        private final Socket server = new Socket();
        private final int from;
        private final AtomicBoolean closedOnce = new AtomicBoolean();

        Link(Socket client, int from) {
            this.client = client;
            this.from = from;
        }

        void run() {
            try {
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                server.connect(new InetSocketAddress("127.0.0.1", target), CONNECT_TIMEOUT_MILLIS);
            } catch (IOException e) {
                close(); // the member is down: the sender sees a closed connection, as without the proxy
                return;
            }
            Thread back = new Thread(
                    () -> pump(server, client), Thread.currentThread().getName() + "-back");
            back.setDaemon(true);
            back.start();
            pump(client, server);
        }

        private void pump(Socket from, Socket to) {
            byte[] buffer = new byte[BUFFER_BYTES];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int read;
                while ((read = in.read(buffer)) != -1) {
                    out.write(buffer, 0, read);
                    out.flush();
                }
            } catch (IOException e) {
                // Either side went away; closing both ends tells the other.
            }
            close();
        }

        void close() {
            if (closedOnce.compareAndSet(false, true)) {
                closeQuietly(client);
                closeQuietly(server);
                links.remove(this);
            }
        }
    }
}
