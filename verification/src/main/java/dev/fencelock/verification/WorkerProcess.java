package dev.fencelock.verification;

import dev.fencelock.test.fault.ProcessControl;
import dev.fencelock.verification.fault.FaultTarget.LingerNotice;
import dev.fencelock.verification.worker.Linger;
import dev.fencelock.verification.worker.WorkerConfig;
import dev.fencelock.verification.worker.WorkerMain;
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
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker JVM as the orchestrator sees it: launched from this JVM's class path, spoken to over its standard
 * input and output, paused and resumed by PID, and never left behind: a JVM exit hook kills whatever is still
 * running.
 */
final class WorkerProcess implements AutoCloseable {

    private static final Logger logger = LoggerFactory.getLogger(WorkerProcess.class);

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "verification-worker-exit"));
    }

    private final String id;
    private final Process process;
    private final OutputStream stdin;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final BlockingQueue<LingerNotice> notices = new LinkedBlockingQueue<>();
    private volatile long acknowledged;
    private volatile boolean paused;

    private WorkerProcess(String id, Process process) {
        this.id = id;
        this.process = process;
        this.stdin = process.getOutputStream();
        Thread reader = new Thread(this::readOutput, "verification-" + id + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts a worker JVM for {@code config}, stored at {@code configFile}; its log goes to {@code logFile}. */
    static WorkerProcess launch(WorkerConfig config, Path configFile, Path logFile) throws IOException {
        config.store(configFile);
        List<String> command = new ArrayList<>(List.of(
                javaBinary(),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                // Two cores serve etcd, PostgreSQL, the orchestrator and three workers: C1 alone warms up cheaply.
                "-XX:TieredStopAtLevel=1",
                "-cp",
                classPath(),
                WorkerMain.class.getName(),
                configFile.toString()));
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                .start();
        LIVE.add(process);
        return new WorkerProcess(config.id(), process);
    }

    String id() {
        return id;
    }

    long pid() {
        return process.pid();
    }

    /** Acknowledged increments so far, as the worker last reported. */
    long acknowledged() {
        return acknowledged;
    }

    /** Waits until the worker's clients are up. */
    void awaitReady(Duration timeout) throws InterruptedException {
        if (!ready.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("worker " + id + " not ready within " + timeout + " (alive: "
                    + process.isAlive() + "); see its log");
        }
    }

    /** Orders the next operation that reaches the phase to stay there; forgets earlier notices. */
    void linger(Linger order) {
        notices.clear();
        send(order.command());
    }

    /** Waits for the worker to say it follows the order; withdraws the order if it does not in time. */
    Optional<LingerNotice> awaitLingering(Duration timeout) throws InterruptedException {
        LingerNotice notice = notices.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (notice == null) {
            send("nolinger");
        }
        return Optional.ofNullable(notice);
    }

    /** Ends the stay of the operation that followed the last order, before its time is up. */
    void endLinger() {
        send("endlinger");
    }

    /** Freezes the worker with {@code SIGSTOP}. */
    void pause() {
        ProcessControl.pause(process.pid());
        paused = true;
    }

    /** Lets it run again with {@code SIGCONT}. */
    void resume() {
        if (paused && process.isAlive()) {
            ProcessControl.resume(process.pid());
        }
        paused = false;
    }

    /** Asks the worker to finish its operations and exit; kills it if it has not within {@code grace}. */
    void stop(Duration grace) throws InterruptedException {
        resume();
        send("stop");
        if (!stopped.await(grace.toMillis(), TimeUnit.MILLISECONDS) || !process.waitFor(5, TimeUnit.SECONDS)) {
            logger.warn("Worker {} did not stop within {}; killing pid {}", id, grace, process.pid());
        }
        close();
    }

    /** Kills the worker if it still runs. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        LIVE.remove(process);
    }

    private void send(String line) {
        try {
            synchronized (stdin) {
                stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                stdin.flush();
            }
        } catch (IOException e) {
            if (process.isAlive()) {
                throw new UncheckedIOException("could not talk to worker " + id, e);
            }
        }
    }

    private void readOutput() {
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                String[] parts = line.split(" ");
                switch (parts[0]) {
                    case "ready" -> ready.countDown();
                    case "progress" -> acknowledged = Long.parseLong(parts[1]);
                    case "lingering" ->
                        notices.add(new LingerNotice(
                                Linger.Phase.valueOf(parts[1]), parts[2], parts[3], Long.parseLong(parts[4])));
                    case "stopped" -> stopped.countDown();
                    default -> logger.info("{}: {}", id, line);
                }
            }
        } catch (IOException | RuntimeException e) {
            logger.warn("Reading worker {} failed: {}", id, e.toString());
        }
    }

    private static String javaBinary() {
        return ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** This JVM's class path: the module's classes and jars, whether run from Maven or from {@code target/lib}. */
    private static String classPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    }
}
