package dev.fencelock.test.fault;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A TCP server on 127.0.0.1 that sends every byte back and remembers what it received, as a proxy target. */
final class EchoServer implements AutoCloseable {

    private final ServerSocket listener;
    private final Set<Socket> clients = ConcurrentHashMap.newKeySet();
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();

    private EchoServer(ServerSocket listener) {
        this.listener = listener;
    }

    static EchoServer start() throws IOException {
        EchoServer server = new EchoServer(new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1")));
        daemon(server::acceptLoop, "echo-accept").start();
        return server;
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Everything received so far, over all connections, as text. */
    String received() {
        synchronized (received) {
            return received.toString(StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() {
        closeQuietly(listener);
        clients.forEach(EchoServer::closeQuietly);
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                clients.add(client);
                daemon(() -> echo(client), "echo-" + client.getPort()).start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void echo(Socket client) {
        byte[] buffer = new byte[4096];
        try (client;
                InputStream in = client.getInputStream();
                OutputStream out = client.getOutputStream()) {
            int read;
            while ((read = in.read(buffer)) != -1) {
                synchronized (received) {
                    received.write(buffer, 0, read);
                }
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException e) {
            // The proxy under test closes connections on purpose.
        } finally {
            clients.remove(client);
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
            // Already closed.
        }
    }
}
