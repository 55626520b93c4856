package dev.fencelock.test.zookeeper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The ZooKeeper members and directories that are still live, and one JVM shutdown hook that kills and deletes them.
 *
 * <p>A test JVM that exits without closing its ensemble ({@code System.exit}, {@code SIGTERM}, an interrupted
 * build) must not leave {@code QuorumPeerMain} processes behind: they would hold ports, memory and CPU and disturb
 * the next run. Only a JVM killed with {@code SIGKILL} runs no hook; its members are left to be stopped by PID.
 */
final class ZooKeeperExitCleanup {

    private static final Set<Process> PROCESSES = ConcurrentHashMap.newKeySet();

    private static final Set<Path> DIRECTORIES = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ZooKeeperExitCleanup::run, "fencelock-zookeeper-exit-cleanup"));
    }

    private ZooKeeperExitCleanup() {}

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

    private static void run() {
        // SIGKILL also ends a SIGSTOPped member, which SIGTERM would not.
        PROCESSES.forEach(Process::destroyForcibly);
        for (Process process : PROCESSES) {
            try {
                process.waitFor(2, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        for (Path directory : DIRECTORIES) {
            try (Stream<Path> paths = Files.walk(directory)) {
                paths.sorted(Comparator.reverseOrder())
                        .forEach(path -> path.toFile().delete());
            } catch (IOException ex) {
                // Nothing sensible is left to do while the JVM exits; the directory is in the temp folder.
            }
        }
    }
}
