package dev.fencelock.test.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Sends job-control and kill signals to one process by PID.
 *
 * <p>A paused process keeps its sockets open but answers nothing, which is the closest a single machine gets to
 * a long GC pause or a frozen VM; the JDK can only terminate processes, so {@code kill(1)} is used. Processes
 * are always addressed by PID, never by name, so nothing else on the machine is touched.
 */
public final class ProcessControl {

    private static final long COMMAND_TIMEOUT_SECONDS = 10;

    private ProcessControl() {}

    /** Freezes the process with {@code SIGSTOP}; it cannot catch or ignore it. */
    public static void pause(long pid) {
        signal("STOP", pid);
        // kill returns once the signal is queued; on a busy machine the process may run on for a
        // moment. Callers assert on a frozen process, so wait until the kernel reports it stopped.
        awaitState(pid, true);
    }

    /** Lets a paused process run again with {@code SIGCONT}. */
    public static void resume(long pid) {
        signal("CONT", pid);
        awaitState(pid, false);
    }

    /** Ends the process at once with {@code SIGKILL}, which also works on a paused process. */
    public static void kill(long pid) {
        signal("KILL", pid);
    }

    /** Waits (bounded) until /proc says the process is, or is no longer, stopped by a signal. */
    private static void awaitState(long pid, boolean stopped) {
        java.nio.file.Path stat = java.nio.file.Path.of("/proc", Long.toString(pid), "stat");
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() - deadline < 0) {
            String state;
            try {
                // Line-based read: /proc files report a size of zero.
                String line = java.nio.file.Files.readAllLines(stat).get(0);
                state = line.substring(line.lastIndexOf(')') + 2, line.lastIndexOf(')') + 3);
            } catch (java.io.IOException | RuntimeException ex) {
                return; // the process is gone; nothing to wait for
            }
            if (state.equals("T") == stopped) {
                return;
            }
            Thread.onSpinWait();
        }
        throw new IllegalStateException("Process " + pid + " did not become " + (stopped ? "stopped" : "running")
                + " within 5 s after its signal");
    }

    private static void signal(String signal, long pid) {
        // kill(1) treats 0 and negative numbers as process groups, even "every process": never pass them on.
        if (pid <= 0) {
            throw new IllegalArgumentException("not a single process id: " + pid);
        }
        String command = "kill -" + signal + " " + pid;
        try {
            Process process = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!process.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(command + " did not finish within " + COMMAND_TIMEOUT_SECONDS + " s");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(command + " failed with exit code " + process.exitValue()
                        + (output.isEmpty() ? "" : ": " + output));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + command + " (is procps' kill on the PATH?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, e);
        }
    }
}
