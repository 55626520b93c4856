package dev.fencelock.test.redis;

import dev.fencelock.test.fault.ProcessControl;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throw-away Debian {@code redis-server} on 127.0.0.1 without persistence ({@code --save ''
 * --appendonly no}), stopped by its PID.
 *
 * <p>Its port is drawn below 32768, outside Linux's ephemeral range, so no outgoing connection of
 * another program holds it by chance; a port that is taken anyway makes the server exit at once,
 * and the next port is tried. {@link #command} speaks just enough RESP for a test to steer the
 * server (replication, configuration) without a client library.
 */
public final class RedisServer implements AutoCloseable {

    /** Debian's server binary. */
    public static final Path BINARY = Path.of("/usr/bin/redis-server");

    private static final int ATTEMPTS = 10;

    private final int port;

    private final Process process;

    private final Path directory;

    private RedisServer(int port, Process process, Path directory) {
        this.port = port;
        this.process = process;
        this.directory = directory;
    }

    /** Starts a server with {@code extraArguments} (e.g. {@code --replicaof}) and waits until it answers. */
    public static RedisServer start(String... extraArguments) {
        if (!Files.isExecutable(BINARY)) {
            throw new IllegalStateException(
                    "No executable " + BINARY + "; install Debian's redis-server (apt-get install -y redis-server)");
        }
        IllegalStateException last = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 32_768);
            try {
                return startOn(port, extraArguments);
            } catch (IllegalStateException ex) {
                last = ex;
            }
        }
        throw new IllegalStateException("redis-server did not start on any of " + ATTEMPTS + " ports", last);
    }

    private static RedisServer startOn(int port, String... extraArguments) {
        Path directory;
        try {
            directory = Files.createTempDirectory("fencelock-redis-");
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not create a directory for redis-server", ex);
        }
        List<String> command = new ArrayList<>(List.of(
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
                directory.toString()));
        command.addAll(List.of(extraArguments));
        Process process;
        try {
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(directory.resolve("redis.log").toFile())
                    .start();
        } catch (IOException ex) {
            deleteRecursively(directory);
            throw new UncheckedIOException("Could not start " + BINARY, ex);
        }
        RedisServer server = new RedisServer(port, process, directory);
        // A minute: a loaded machine may be slow to start a process; a failed bind ends the wait at once.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!server.answersPing()) {
            if (!process.isAlive() || System.nanoTime() - deadline > 0) {
                String log = server.log();
                server.close();
                throw new IllegalStateException("redis-server did not start on port " + port + ": " + log);
            }
            try {
                process.waitFor(20, TimeUnit.MILLISECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                server.close();
                throw new IllegalStateException("Interrupted while starting redis-server", ex);
            }
        }
        return server;
    }

    public int port() {
        return this.port;
    }

    public long pid() {
        return this.process.pid();
    }

    /** The installed server's version, e.g. {@code 7.0.15}, or {@code unknown}. */
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

    /** {@code redis://127.0.0.1:<port>}. */
    public String uri() {
        return "redis://127.0.0.1:" + this.port;
    }

    /** Freezes the server with {@code SIGSTOP}: it keeps its sockets but answers nothing. */
    public void pause() {
        ProcessControl.pause(pid());
    }

    /** Lets a paused server run again. */
    public void resume() {
        ProcessControl.resume(pid());
    }

    /** Ends the server at once with {@code SIGKILL}, as a crash would: whatever it did not send is lost. */
    public void kill() {
        ProcessControl.kill(pid());
        try {
            this.process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Sends one command and returns its reply as text: a status or bulk string as is, an integer in
     * decimal, an array as its elements joined by newlines.
     *
     * @throws IllegalStateException when the server answers with an error
     */
    public String command(String... arguments) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.port), 5_000);
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            StringBuilder request =
                    new StringBuilder("*").append(arguments.length).append("\r\n");
            for (String argument : arguments) {
                byte[] bytes = argument.getBytes(StandardCharsets.UTF_8);
                request.append('$')
                        .append(bytes.length)
                        .append("\r\n")
                        .append(argument)
                        .append("\r\n");
            }
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return reply(new BufferedInputStream(socket.getInputStream()));
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not send " + arguments[0] + " to " + this, ex);
        }
    }

    private String reply(InputStream in) throws IOException {
        String line = line(in);
        char type = line.charAt(0);
        String rest = line.substring(1);
        switch (type) {
            case '+', ':' -> {
                return rest;
            }
            case '-' -> throw new IllegalStateException(this + " answered: " + rest);
            case '$' -> {
                int length = Integer.parseInt(rest);
                if (length < 0) {
                    return "";
                }
                byte[] bytes = in.readNBytes(length + 2);
                return new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            case '*' -> {
                int count = Integer.parseInt(rest);
                List<String> elements = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    elements.add(reply(in));
                }
                return String.join("\n", elements);
            }
            default -> throw new IllegalStateException(this + " answered something unexpected: " + line);
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            line.append((char) c);
        }
        in.read(); // '\n'
        return line.toString();
    }

    private boolean answersPing() {
        try {
            return command("PING").equals("PONG");
        } catch (RuntimeException ex) {
            return false;
        }
    }

    private String log() {
        try {
            return Files.readString(this.directory.resolve("redis.log")).strip();
        } catch (IOException ex) {
            return "(no log)";
        }
    }

    /** Stops the server by its PID: SIGTERM, then SIGKILL if it is still there after 10 s; a paused one is resumed first. */
    @Override
    public void close() {
        if (this.process.isAlive()) {
            ProcessControl.resume(pid());
            this.process.destroy();
            try {
                if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
                    this.process.destroyForcibly();
                    this.process.waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException ex) {
                this.process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        deleteRecursively(this.directory);
    }

    private static void deleteRecursively(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException ex) {
            // A temporary directory; nothing depends on it.
        }
    }

    @Override
    public String toString() {
        return "redis-server[127.0.0.1:" + this.port + ", pid " + pid() + "]";
    }
}
