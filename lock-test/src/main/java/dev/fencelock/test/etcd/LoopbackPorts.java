package dev.fencelock.test.etcd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Finds free TCP ports on 127.0.0.1 for etcd to listen on, or checks the ones a test pinned. */
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

    /**
     * The client and peer port of each of {@code members} members, alternating ({@code client0, peer0,
     * client1, ...}): the pinned ones where given (empty arrays: none), free ones otherwise.
     *
     * @throws IllegalStateException when a pinned port is in use, naming it, before etcd fails on it
     */
    static int[] assign(int members, int[] clientPorts, int[] peerPorts) {
        int[] free = reserve(2 * members);
        int[] ports = new int[2 * members];
        for (int i = 0; i < members; i++) {
            ports[2 * i] = (clientPorts.length > 0) ? requireFree(clientPorts[i], "client") : free[2 * i];
            ports[2 * i + 1] = (peerPorts.length > 0) ? requireFree(peerPorts[i], "peer") : free[2 * i + 1];
        }
        return ports;
    }

    private static int requireFree(int port, String use) {
        try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
            return probe.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(
                    "the pinned etcd " + use + " port 127.0.0.1:" + port + " is in use (" + e.getMessage()
                            + "); stop what listens there or pin another port",
                    e);
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
