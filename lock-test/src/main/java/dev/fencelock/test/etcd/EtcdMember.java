package dev.fencelock.test.etcd;

import dev.fencelock.test.fault.ExitCleanup;
import dev.fencelock.test.fault.ProcessControl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One etcd process of an {@link EtcdCluster}, with the controls fault tests need: kill, stop, pause, resume and
 * restart with the same identity, plus health, raft status and metrics read over its client URL.
 *
 * <p>A member keeps its name, ports and data directory for the lifetime of the cluster, so a restarted member
 * rejoins as the same raft member with its log intact.
 */
public final class EtcdMember {

    /** Long enough for a loaded machine's answer; a member that cannot answer costs a poll this long. */
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

    private static final Duration METRICS_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration STOP_GRACE = Duration.ofSeconds(5);
    private static final Duration EXIT_WAIT = Duration.ofSeconds(10);
    private static final long POLL_MILLIS = 100;
    private static final int LOG_TAIL_LINES = 40;

    private final String name;
    private final int clientPort;
    private final int peerPort;
    private final Path directory;
    private final List<String> command;
    private final Duration readyTimeout;
    private final String scheme;
    private final LoopbackHttp http;

    private @Nullable Process process;
    private boolean paused;
    private volatile @Nullable String memberId;

    EtcdMember(
            String name,
            int clientPort,
            int peerPort,
            Path directory,
            List<String> command,
            Duration readyTimeout,
            @Nullable MemberTls tls) {
        this.name = name;
        this.clientPort = clientPort;
        this.peerPort = peerPort;
        this.directory = directory;
        this.command = List.copyOf(command);
        this.readyTimeout = readyTimeout;
        this.scheme = (tls != null) ? "https" : "http";
        this.http = (tls != null) ? tls.http() : LoopbackHttp.PLAIN;
    }

    /** The etcd member name, {@code m1} to {@code mN}. */
    public String name() {
        return name;
    }

    /** The URL clients use, {@code http://127.0.0.1:<port>}, or {@code https://…} for a cluster with TLS. */
    public String clientEndpoint() {
        return scheme + "://127.0.0.1:" + clientPort;
    }

    /** The client port, for tests that put a proxy in front of this member. */
    public int clientPort() {
        return clientPort;
    }

    /** The URL the other members replicate to. */
    public String peerEndpoint() {
        return "http://127.0.0.1:" + peerPort;
    }

    /** The directory holding this member's etcd data directory and log file; deleted when the cluster closes. */
    public Path directory() {
        return directory;
    }

    /** The PEM file of the server certificate this member shows, for a cluster with TLS; replace it and restart. */
    public Path serverCertificateFile() {
        return directory.resolve("tls").resolve("server.crt");
    }

    /** The PEM file of the private key of {@link #serverCertificateFile()}. */
    public Path serverKeyFile() {
        return directory.resolve("tls").resolve("server.key");
    }

    /** Where this member's stdout and stderr go, across restarts; read it when a test fails in a puzzling way. */
    public Path logFile() {
        return directory.resolve("etcd.log");
    }

    /**
     * The PID of the current etcd process, also after it died, so tests can check that it is gone.
     *
     * @throws IllegalStateException if the member was never started
     */
    public synchronized long pid() {
        return started().pid();
    }

    /** True while the process exists, also while it is paused. */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** True between {@link #pause()} and {@link #resume()}. */
    public synchronized boolean isPaused() {
        return paused && isRunning();
    }

    /** Ends the process with {@code SIGKILL}, as a crash would, and waits until it is gone. No-op if not running. */
    public synchronized void kill() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            return;
        }
        current.destroyForcibly();
        awaitExit(current, EXIT_WAIT);
        paused = false;
    }

    /**
     * Stops the process the way an operator would: {@code SIGTERM}, and {@code SIGKILL} if it has not exited after
     * 5 s. A paused member is resumed first because a stopped process only acts on {@code SIGTERM} once resumed.
     */
    public synchronized void stop() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            return;
        }
        resume();
        current.destroy();
        if (!waitFor(current, STOP_GRACE)) {
            current.destroyForcibly();
            awaitExit(current, EXIT_WAIT);
        }
        ExitCleanup.untrack(current);
    }

    /**
     * Freezes the process with {@code SIGSTOP}: its ports stay open but it answers nothing, like a member in a long
     * GC pause or on a frozen VM. The others elect a new leader if this one led.
     */
    public synchronized void pause() {
        Process current = process;
        if (current == null || !current.isAlive()) {
            throw new IllegalStateException(name + " is not running, so it cannot be paused");
        }
        if (!paused) {
            ProcessControl.pause(current.pid());
            paused = true;
        }
    }

    /** Lets a paused member run again with {@code SIGCONT}. No-op if it is not paused. */
    public synchronized void resume() {
        Process current = process;
        if (paused && current != null && current.isAlive()) {
            ProcessControl.resume(current.pid());
        }
        paused = false;
    }

    /**
     * Starts the member again with the same name, ports and data directory and waits until it reports healthy.
     * A running member is stopped first. etcd ignores the initial-cluster flags once its data directory exists,
     * so the member rejoins as itself.
     *
     * <p>Health needs a quorum: when most members are down, use {@link #restartWithoutWaiting()} for all but the
     * last one.
     *
     * @throws IllegalStateException if the member is not healthy within the cluster's start timeout
     */
    public void restart() {
        restartWithoutWaiting();
        awaitHealthy(readyTimeout);
    }

    /** Starts the member again like {@link #restart()} but returns as soon as the process is launched. */
    public synchronized void restartWithoutWaiting() {
        stop();
        launch();
    }

    /** Asks {@code /health} with a 1 s timeout; a paused, dead or quorum-less member is not healthy. */
    public boolean isHealthy() {
        return isHealthy(PROBE_TIMEOUT);
    }

    /**
     * Asks {@code /health}. etcd 3.4 answers {@code {"health":"true"}} only when the member has a leader and a
     * quorum read succeeds.
     */
    public boolean isHealthy(Duration timeout) {
        try {
            return http.http("GET", clientEndpoint() + "/health", null, timeout)
                    .replace(" ", "")
                    .contains("\"health\":\"true\"");
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Waits until the member reports healthy.
     *
     * @throws IllegalStateException if it does not within {@code timeout} or its process exits; the message
     *     carries the end of the member's log
     */
    public void awaitHealthy(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!isHealthy(PROBE_TIMEOUT)) {
            if (!isRunning()) {
                throw failure(name + " exited with code " + exitCode() + " before it became healthy");
            }
            if (System.nanoTime() - deadline > 0) {
                throw failure(name + " did not report healthy within " + timeout);
            }
            pauseBriefly();
        }
    }

    /** True if this member currently considers itself the raft leader; false if it cannot answer. */
    public boolean isLeader() {
        try {
            return status(PROBE_TIMEOUT).join().isLeader();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * The member's raft id as a decimal string, as etcd's JSON and jetcd's {@code Member.getId()} (unsigned)
     * show it. Asked once from the member and then remembered, since it never changes.
     */
    public String memberId() {
        String known = memberId;
        if (known != null) {
            return known;
        }
        try {
            return status(PROBE_TIMEOUT).join().memberId();
        } catch (RuntimeException e) {
            throw new IllegalStateException(name + " did not tell its member id", e);
        }
    }

    /** The member's Prometheus metrics page as text. */
    public String metrics() {
        try {
            return http.http("GET", clientEndpoint() + "/metrics", null, METRICS_TIMEOUT);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read metrics of " + name, e);
        }
    }

    /**
     * Sums the samples of one metric, for example {@code metric("grpc_server_msg_received_total",
     * "grpc_method=\"LeaseKeepAlive\"")} to count the keep-alives this member received.
     *
     * @param labelFilter {@code name="value"} pairs separated by commas that a sample must all carry; {@code null}
     *     or blank sums every sample of the metric
     * @return the sum, {@code 0.0} if no sample matches
     */
    public double metric(String name, @Nullable String labelFilter) {
        return PrometheusSamples.sum(metrics(), name, labelFilter);
    }

    @Override
    public String toString() {
        return name + "[" + clientEndpoint() + ", " + state() + "]";
    }

    synchronized void launch() {
        if (isRunning()) {
            throw new IllegalStateException(name + " is already running as pid " + pid());
        }
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()));
        // etcd reads any ETCD_* variable as a flag; one left in the environment could silently change the cluster.
        builder.environment().keySet().removeIf(key -> key.startsWith("ETCD_") && !key.equals("ETCD_UNSUPPORTED_ARCH"));
        try {
            Process started = builder.start();
            ExitCleanup.track(started);
            process = started;
            paused = false;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start etcd member " + name + " with " + command, e);
        }
    }

    /** Sends {@code SIGTERM} without waiting, so that a whole cluster shuts down in parallel. */
    synchronized void beginStop() {
        resume();
        Process current = process;
        if (current != null && current.isAlive()) {
            current.destroy();
        }
    }

    /** Sends one JSON request to the member's grpc-gateway, such as {@code /v3/auth/user/add}. */
    String gateway(String path, String json, Duration timeout) throws IOException {
        return http.http("POST", clientEndpoint() + path, json, timeout);
    }

    /** Asks the grpc-gateway for this member's raft status and remembers its member id. */
    CompletableFuture<MemberStatus> status(Duration timeout) {
        return http.httpAsync("POST", clientEndpoint() + "/v3/maintenance/status", "{}", timeout)
                .thenApply(json -> {
                    try {
                        MemberStatus status = MemberStatus.parse(json);
                        memberId = status.memberId();
                        return status;
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
    }

    /** The last lines of the log, for error messages. */
    String logTail() {
        try {
            List<String> lines = Files.readAllLines(logFile(), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return "(log " + logFile() + " unreadable: " + e.getMessage() + ")";
        }
    }

    synchronized String state() {
        if (process == null) {
            return "not started";
        }
        if (!process.isAlive()) {
            return "exited (pid " + process.pid() + ", code " + process.exitValue() + ")";
        }
        return (paused ? "paused" : "running") + " (pid " + process.pid() + ")";
    }

    private Process started() {
        Process current = process;
        if (current == null) {
            throw new IllegalStateException(name + " was never started");
        }
        return current;
    }

    private synchronized String exitCode() {
        Process current = process;
        return current == null || current.isAlive() ? "?" : Integer.toString(current.exitValue());
    }

    private IllegalStateException failure(String message) {
        return new IllegalStateException(message + "; last lines of " + logFile() + ":\n" + logTail());
    }

    private static void awaitExit(Process process, Duration timeout) {
        if (!waitFor(process, timeout)) {
            throw new IllegalStateException("etcd pid " + process.pid() + " did not exit within " + timeout);
        }
        ExitCleanup.untrack(process);
    }

    private static boolean waitFor(Process process, Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for etcd pid " + process.pid(), e);
        }
    }

    private static void pauseBriefly() {
        try {
            Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for etcd", e);
        }
    }
}
