package dev.fencelock.test.etcd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Finds free TCP ports on 127.0.0.1 for etcd to listen on. */
final class LoopbackPorts {

    private LoopbackPorts() {}

    /**
     * Returns {@code count} distinct ports that were free a moment ago.
     *
     * <p>All sockets stay bound until every port is known, so the kernel cannot hand the same port out twice
     * within one cluster; another program could still take one before etcd binds it, which is rare enough on a
     * test machine to accept.
     */
    static int[] reserve(int count) {
        List<ServerSocket> sockets = new ArrayList<>(count);
        try {
            InetAddress loopback = InetAddress.getByName("127.0.0.1");
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, loopback);
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("could not find free loopback ports", e);
        } finally {
            sockets.forEach(LoopbackPorts::closeQuietly);
        }
    }

    private static void closeQuietly(ServerSocket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // The port was only probed; failing to close the probe does not matter.
        }
    }
}
