package dev.fencelock.test.fault;

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
 * The server processes (etcd and ZooKeeper members) and directories the kit started that are still live, and one JVM
 * shutdown hook that kills and deletes them.
 *
 * <p>A test that crashes, or a build that is interrupted ({@code System.exit}, {@code SIGTERM}), must not leave
 * members running: they would hold ports, memory and CPU on a small machine and disturb the next run. Only a JVM
 * killed with {@code SIGKILL} runs no hook; its members are left to be stopped by PID.
 */
public final class ExitCleanup {

    private static final Set<Process> PROCESSES = ConcurrentHashMap.newKeySet();
    private static final Set<Path> DIRECTORIES = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ExitCleanup::run, "fencelock-test-exit-cleanup"));
    }

    private ExitCleanup() {}

    public static void track(Process process) {
        PROCESSES.add(process);
    }

    public static void untrack(Process process) {
        PROCESSES.remove(process);
    }

    public static void track(Path directory) {
        DIRECTORIES.add(directory);
    }

    public static void untrack(Path directory) {
        DIRECTORIES.remove(directory);
    }

    /** Deletes a directory tree; used by the cluster on close as well as at JVM exit. */
    public static void deleteRecursively(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(ExitCleanup::delete);
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
