package dev.fencelock.verification;

import dev.fencelock.verification.checker.HistoryFiles;
import dev.fencelock.verification.fault.FaultTarget;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The orchestrator's own record of a run, beside the workers' histories: when the workload started and ended, and
 * every fault window. Times are {@code System.nanoTime()}, comparable with the workers' on one machine.
 */
final class FaultLog implements AutoCloseable {

    private final BufferedWriter out;
    private final List<String> windows = new ArrayList<>();

    FaultLog(Path runDirectory) throws IOException {
        this.out = Files.newBufferedWriter(runDirectory.resolve(HistoryFiles.FAULTS_FILE), StandardCharsets.UTF_8);
    }

    /** The workload starts; {@code leaseTtl} bounds how soon a force-release must show (see the checker). */
    void runStart(Duration leaseTtl) {
        line("{\"type\":\"run-start\",\"t\":" + System.nanoTime() + ",\"leaseTtlMillis\":" + leaseTtl.toMillis() + "}");
    }

    void runEnd() {
        line("{\"type\":\"run-end\",\"t\":" + System.nanoTime() + "}");
    }

    /** Records a fault that began at {@code start} and was healed at {@code end}. */
    void window(String name, String detail, long start, long end) {
        fault(name, detail, start, end, "");
    }

    /**
     * Records a fault that set out to delete a holder's key, with the token of the key it deleted, so that the checker
     * can tell whether the deletion took effect, or whether the caught holder had lost its key already.
     */
    void deletionWindow(String name, String detail, long start, long end, FaultTarget.Deletion deletion) {
        fault(
                name,
                detail,
                start,
                end,
                ",\"lockKey\":" + quote(deletion.lockKey()) + ",\"caughtToken\":" + deletion.caughtToken()
                        + ",\"deletedToken\":" + deletion.deletedToken());
    }

    private void fault(String name, String detail, long start, long end, String moreFields) {
        line("{\"type\":\"fault\",\"name\":" + quote(name) + ",\"detail\":" + quote(detail) + ",\"start\":" + start
                + ",\"end\":" + end + moreFields + "}");
        synchronized (windows) {
            windows.add(name + ": " + detail + " (" + (end - start) / 1_000_000 + " ms)");
        }
    }

    /** The windows so far, in words, for the orchestrator's log. */
    List<String> describe() {
        synchronized (windows) {
            return List.copyOf(windows);
        }
    }

    private synchronized void line(String json) {
        try {
            out.write(json);
            out.newLine();
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String quote(String text) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                quoted.append('\\').append(c);
            } else if (c < 0x20) {
                quoted.append(String.format("\\u%04x", (int) c));
            } else {
                quoted.append(c);
            }
        }
        return quoted.append('"').toString();
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
