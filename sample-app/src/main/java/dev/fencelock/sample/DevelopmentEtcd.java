package dev.fencelock.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Starts a single-member etcd on a free loopback port when nothing says where etcd is, so that
 * {@code java -jar sample-app.jar} works on a machine with only the etcd binary installed.
 *
 * <p>It runs only when {@code fencelock.etcd.endpoints} is not set, the etcd backend is in use and
 * {@code inventory.development-etcd.enabled} is not {@code false}. The member's data lives in a
 * temporary directory; a shutdown hook stops the process by its PID and deletes the directory, so
 * nothing outlives the application. Never use this in production: one member has no fault
 * tolerance.
 */
public final class DevelopmentEtcd implements EnvironmentPostProcessor {

    static final String MISSING_BINARY = "No etcd binary found (looked at /usr/bin/etcd and etcd on the PATH):"
            + " install etcd with `apt-get install -y etcd-server` or set fencelock.etcd.endpoints";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

    private final Log log;

    public DevelopmentEtcd(DeferredLogFactory logs) {
        this.log = logs.getLog(DevelopmentEtcd.class);
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (!wanted(environment)) {
            return;
        }
        Path binary = findBinary().orElseThrow(() -> new IllegalStateException(MISSING_BINARY));
        Member member = start(binary);
        Runtime.getRuntime().addShutdownHook(new Thread(member::stop, "fencelock-sample-etcd-stop"));
        this.log.info("Started a development etcd (pid " + member.process().pid() + ") at " + member.endpoint()
                + ", data in " + member.dataDir() + "; set fencelock.etcd.endpoints to use a real cluster");
        environment
                .getPropertySources()
                .addLast(new MapPropertySource(
                        "developmentEtcd", Map.of("fencelock.etcd.endpoints", member.endpoint())));
    }

    /** A started member; {@link #stop()} ends it by PID and deletes its data. */
    record Member(String endpoint, Process process, Path dataDir) {

        void stop() {
            DevelopmentEtcd.stop(this.process, this.dataDir);
        }
    }

    static boolean wanted(ConfigurableEnvironment environment) {
        return environment.getProperty("inventory.development-etcd.enabled", Boolean.class, true)
                && environment.getProperty("fencelock.enabled", Boolean.class, true)
                && "etcd".equalsIgnoreCase(environment.getProperty("fencelock.backend", "etcd"))
                && !environment.containsProperty("fencelock.etcd.endpoints")
                && !environment.containsProperty("fencelock.etcd.endpoints[0]");
    }

    static Optional<Path> findBinary() {
        Path installed = Paths.get("/usr/bin/etcd");
        if (Files.isExecutable(installed)) {
            return Optional.of(installed);
        }
        String path = System.getenv("PATH");
        return (path != null)
                ? Stream.of(path.split(java.io.File.pathSeparator))
                        .map(directory -> Paths.get(directory, "etcd"))
                        .filter(Files::isExecutable)
                        .findFirst()
                : Optional.empty();
    }

    static Member start(Path binary) {
        try {
            Path dataDir = Files.createTempDirectory("fencelock-sample-etcd");
            int clientPort = freePort();
            int peerPort = freePort();
            String client = "http://127.0.0.1:" + clientPort;
            String peer = "http://127.0.0.1:" + peerPort;
            ProcessBuilder builder = new ProcessBuilder(List.of(
                            binary.toString(),
                            "--name=sample",
                            "--data-dir=" + dataDir.resolve("member"),
                            "--listen-client-urls=" + client,
                            "--advertise-client-urls=" + client,
                            "--listen-peer-urls=" + peer,
                            "--initial-advertise-peer-urls=" + peer,
                            "--initial-cluster=sample=" + peer))
                    .redirectErrorStream(true)
                    .redirectOutput(dataDir.resolve("etcd.log").toFile());
            // Debian's etcd reads ETCD_* variables too; a stray one must not reconfigure this member.
            builder.environment().keySet().removeIf(name -> name.startsWith("ETCD_"));
            Process process = builder.start();
            awaitHealthy(process, client, dataDir);
            return new Member(client, process, dataDir);
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not start a development etcd from " + binary, ex);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void awaitHealthy(Process process, String client, Path dataDir) {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest health = HttpRequest.newBuilder(URI.create(client + "/health"))
                .timeout(Duration.ofSeconds(1))
                .build();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline && process.isAlive()) {
            try {
                if (http.send(health, HttpResponse.BodyHandlers.ofString())
                        .body()
                        .contains("\"health\":\"true\"")) {
                    return;
                }
            } catch (IOException ex) {
                // Not listening yet.
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                break;
            }
            pause();
        }
        stop(process, dataDir);
        throw new IllegalStateException("Development etcd at " + client + " did not become healthy within "
                + START_TIMEOUT.toSeconds() + "s; see " + dataDir.resolve("etcd.log")
                + " (or set fencelock.etcd.endpoints)");
    }

    private static void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(100);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static void stop(Process process, Path dataDir) {
        ProcessHandle handle = process.toHandle();
        handle.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                handle.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException ex) {
            // A temporary directory left behind is harmless.
        }
    }
}
