package dev.fencelock.verification.worker;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

/**
 * What one worker process does, handed over from the orchestrator as a properties file.
 *
 * @param id the worker's name, such as {@code w1}; prefixes its operation ids
 * @param store the store its locks live in
 * @param endpoints how it reaches the store's members (its own proxies): etcd endpoints, or ZooKeeper addresses
 *     that make up its connect string
 * @param namespace the key namespace (etcd) or node (ZooKeeper) of the run
 * @param keys the counters (and lock resources) it picks from at random
 * @param threads how many operations it runs at once
 * @param leaseTtl each lock's lease
 * @param waitTimeout how long an acquisition waits for a busy lock
 * @param thinkMax the longest pause between reading and writing a counter
 * @param guard how writes are fenced: the client's guard, the protected tables' triggers alone, or not at all
 * @param jdbcUrl the database
 * @param jdbcUser its user
 * @param jdbcPassword its password
 * @param tables the run's table names
 * @param historyFile where the worker writes its history
 * @param seed seeds the choice of keys and think times
 */
public record WorkerConfig(
        String id,
        Store store,
        List<String> endpoints,
        String namespace,
        List<String> keys,
        int threads,
        Duration leaseTtl,
        Duration waitTimeout,
        Duration thinkMax,
        Guard guard,
        String jdbcUrl,
        String jdbcUser,
        String jdbcPassword,
        RunTables tables,
        Path historyFile,
        long seed) {

    /** Writes the configuration to {@code file}. */
    public void store(Path file) throws IOException {
        Properties properties = new Properties();
        properties.setProperty("id", id);
        properties.setProperty("store", store.label());
        properties.setProperty("endpoints", String.join(",", endpoints));
        properties.setProperty("namespace", namespace);
        properties.setProperty("keys", String.join(",", keys));
        properties.setProperty("threads", Integer.toString(threads));
        properties.setProperty("leaseTtl", leaseTtl.toString());
        properties.setProperty("waitTimeout", waitTimeout.toString());
        properties.setProperty("thinkMax", thinkMax.toString());
        properties.setProperty("guard", guard.name());
        properties.setProperty("jdbcUrl", jdbcUrl);
        properties.setProperty("jdbcUser", jdbcUser);
        properties.setProperty("jdbcPassword", jdbcPassword);
        properties.setProperty("tablePrefix", tables.prefix());
        properties.setProperty("historyFile", historyFile.toString());
        properties.setProperty("seed", Long.toString(seed));
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            properties.store(out, "FenceLock verification worker " + id);
        }
    }

    /** Reads a configuration that {@link #store} wrote. */
    public static WorkerConfig load(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
        }
        return new WorkerConfig(
                p.getProperty("id"),
                Store.of(p.getProperty("store", Store.ETCD.label())),
                List.of(p.getProperty("endpoints").split(",")),
                p.getProperty("namespace"),
                List.of(p.getProperty("keys").split(",")),
                Integer.parseInt(p.getProperty("threads")),
                Duration.parse(p.getProperty("leaseTtl")),
                Duration.parse(p.getProperty("waitTimeout")),
                Duration.parse(p.getProperty("thinkMax")),
                Guard.valueOf(p.getProperty("guard")),
                p.getProperty("jdbcUrl"),
                p.getProperty("jdbcUser"),
                p.getProperty("jdbcPassword"),
                new RunTables(p.getProperty("tablePrefix")),
                Path.of(p.getProperty("historyFile")),
                Long.parseLong(p.getProperty("seed")));
    }
}
