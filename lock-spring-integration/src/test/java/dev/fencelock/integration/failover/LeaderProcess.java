package dev.fencelock.integration.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.test.fault.ProcessControl;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A {@link LeaderNodeMain} JVM as the test sees it: its reports in a queue, signals by PID. */
final class LeaderProcess implements AutoCloseable {

    private static final Logger logger = LoggerFactory.getLogger(LeaderProcess.class);

    private final Process process;

    /** Reports not yet taken by {@link #awaitReport}, oldest first. */
    private final List<String> reports = new ArrayList<>();

    private LeaderProcess(Process process) {
        this.process = process;
        Thread reader = new Thread(this::readReports, "leader-process-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    static LeaderProcess launch(LeaderNode.Settings settings) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                javaBinary(),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                classPath(),
                LeaderNodeMain.class.getName()));
        command.addAll(List.of(settings.arguments()));
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        return new LeaderProcess(process);
    }

    long pid() {
        return this.process.pid();
    }

    /**
     * The first report not yet taken that starts with {@code prefix}; reports with other prefixes stay
     * for later calls. Fails after {@code seconds}, or at once if the process died.
     */
    String awaitReport(String prefix, long seconds) {
        AtomicReference<String> found = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(seconds))
                .pollInterval(Duration.ofMillis(20))
                .failFast("leader process " + pid() + " died", () -> !this.process.isAlive())
                .until(() -> {
                    synchronized (this.reports) {
                        for (int i = 0; i < this.reports.size(); i++) {
                            if (this.reports.get(i).startsWith(prefix)) {
                                found.set(this.reports.remove(i));
                                return true;
                            }
                        }
                        return false;
                    }
                });
        return found.get().substring(prefix.length()).trim();
    }

    /** Whether a report starting with {@code prefix} has come and not been taken; takes nothing. */
    boolean hasReport(String prefix) {
        synchronized (this.reports) {
            return this.reports.stream().anyMatch(report -> report.startsWith(prefix));
        }
    }

    void send(String line) {
        try {
            OutputStream stdin = this.process.getOutputStream();
            stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException ex) {
            throw new UncheckedIOException("could not talk to leader process " + pid(), ex);
        }
    }

    void kill() throws InterruptedException {
        ProcessControl.kill(pid());
        assertThat(this.process.waitFor(10, TimeUnit.SECONDS)).isTrue();
    }

    @Override
    public void close() {
        if (this.process.isAlive()) {
            // A paused process must run again to die of anything but SIGKILL; SIGKILL it is.
            ProcessControl.kill(pid());
            try {
                this.process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void readReports() {
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("ready")
                        || line.startsWith("granted")
                        || line.startsWith("revoked")
                        || line.startsWith("write-result")) {
                    synchronized (this.reports) {
                        this.reports.add(line);
                    }
                } else {
                    logger.info("leader process: {}", line);
                }
            }
        } catch (IOException ex) {
            logger.debug("Leader process output ended: {}", ex.toString());
        }
    }

    private static String javaBinary() {
        return ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    private static String classPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return (surefire != null && !surefire.isBlank()) ? surefire : System.getProperty("java.class.path");
    }
}
