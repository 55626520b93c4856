package dev.fencelock.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away Debian {@code redis-server} on 127.0.0.1 and a free port, without persistence
 * ({@code --save '' --appendonly no}), stopped by its PID.
 */
public final class RedisServer implements AutoCloseable {

    public static final Path BINARY = Path.of("/usr/bin/redis-server");

    private final int port;

    private final long pid;

    private final Path directory;

    private RedisServer(int port, long pid, Path directory) {
        this.port = port;
        this.pid = pid;
        this.directory = directory;
    }

    /** Starts a server and waits until it answers {@code PING}. */
    public static RedisServer start() {
        if (!Files.isExecutable(BINARY)) {
            throw new IllegalStateException(
                    "no executable " + BINARY + "; install Debian's redis-server (apt-get install -y redis-server)");
        }
        try {
            Path directory = Files.createTempDirectory("fencelock-bench-redis-");
            int port = freePort();
            Process process = new ProcessBuilder(List.of(
                            BINARY.toString(),
                            "--bind",
                            "127.0.0.1",
                            "--port",
                            Integer.toString(port),
                            "--save",
                            "",
                            "--appendonly",
                            "no",
                            "--dir",
                            directory.toString()))
                    .redirectErrorStream(true)
                    .redirectOutput(directory.resolve("redis.log").toFile())
                    .start();
            RedisServer server = new RedisServer(port, process.pid(), directory);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!server.ping()) {
                if (!process.isAlive() || System.nanoTime() - deadline > 0) {
                    server.close();
                    throw new IllegalStateException(
                            "redis-server did not start; see " + directory.resolve("redis.log"));
                }
                Thread.sleep(50);
            }
            return server;
        } catch (IOException ex) {
            throw new UncheckedIOException("could not start " + BINARY, ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting redis-server", ex);
        }
    }

    public int port() {
        return this.port;
    }

    public long pid() {
        return this.pid;
    }

    /** The server's version line, e.g. {@code 7.0.15}. */
    public static String version() {
        try {
            Process process = new ProcessBuilder(BINARY.toString(), "--version")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor(5, TimeUnit.SECONDS);
            int at = out.indexOf("v=");
            return (at >= 0) ? out.substring(at + 2, out.indexOf(' ', at)) : out.trim();
        } catch (IOException ex) {
            return "unknown";
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    boolean ping() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.port), 500);
            socket.setSoTimeout(500);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] reply = new byte[7];
            int read = in.read(reply);
            return read > 0 && new String(reply, 0, read, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException ex) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** Stops the server by its PID: SIGTERM, then SIGKILL after 5 s. */
    @Override
    public void close() {
        Optional<ProcessHandle> handle = ProcessHandle.of(this.pid);
        handle.ifPresent(process -> {
            process.destroy();
            try {
                process.onExit().get(5, TimeUnit.SECONDS);
            } catch (Exception ex) {
                process.destroyForcibly();
            }
        });
        try (var files = Files.walk(this.directory)) {
            files.sorted(java.util.Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException ex) {
            // A temporary directory; nothing depends on it.
        }
    }

    @Override
    public String toString() {
        return "redis-server[127.0.0.1:" + this.port + ", pid " + this.pid + "]";
    }
}
