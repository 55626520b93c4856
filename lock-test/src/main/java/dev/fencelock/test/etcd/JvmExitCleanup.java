package dev.fencelock.test.etcd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The etcd processes and directories that are still live, and one JVM shutdown hook that kills and deletes them.
 *
 * <p>A test that crashes, or a build that is interrupted, must not leave etcd members running: they would hold
 * ports and CPU on a small machine and disturb the next run.
 */
final class JvmExitCleanup {

    private static final Set<Process> PROCESSES = ConcurrentHashMap.newKeySet();
    private static final Set<Path> DIRECTORIES = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(JvmExitCleanup::run, "fencelock-etcd-exit-cleanup"));
    }

    private JvmExitCleanup() {}

    static void track(Process process) {
        PROCESSES.add(process);
    }

    static void untrack(Process process) {
        PROCESSES.remove(process);
    }

    static void track(Path directory) {
        DIRECTORIES.add(directory);
    }

    static void untrack(Path directory) {
        DIRECTORIES.remove(directory);
    }

    /** Deletes a directory tree; used by the cluster on close as well as at JVM exit. */
    static void deleteRecursively(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(JvmExitCleanup::delete);
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + directory, e);
        }
    }

    private static void delete(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + path, e);
        }
    }

    private static void run() {
        // SIGKILL also ends a SIGSTOPped member, which SIGTERM would not.
        PROCESSES.forEach(Process::destroyForcibly);
        for (Process process : PROCESSES) {
            try {
                process.waitFor(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        for (Path directory : DIRECTORIES) {
            try {
                deleteRecursively(directory);
            } catch (UncheckedIOException e) {
                // Nothing sensible is left to do while the JVM exits; the directory is in the temp folder.
            }
        }
    }
}
