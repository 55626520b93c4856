package dev.fencelock.verification.worker;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencelock.LockClient;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.jdbc.FencedDataSource;
import dev.fencelock.spi.LockBackend;
import dev.fencelock.zookeeper.ZooKeeperLockBackend;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

/**
 * A worker process of the campaign: {@code java ... WorkerMain <config.properties>}.
 *
 * <p>It talks to the orchestrator over standard input and output, one line at a time. It prints {@code ready}
 * once its clients are up, {@code progress <ok> <fail> <info>} every second, {@code lingering <phase> <op> <key>
 * <token>} when it follows a {@link Linger} order, and {@code stopped} at the end; it reads {@code linger <phase>
 * <millis>}, {@code nolinger} (withdraws an order no operation took yet), {@code endlinger} (ends the stay of the
 * operation that took the last order) and {@code stop}. The end of standard input means the orchestrator is gone, and the worker stops too.
 */
public final class WorkerMain {

    /** How long a stop waits for operations in flight (a lock wait, a blocked transaction) to end. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);

    private WorkerMain() {}

    public static void main(String[] args) throws Exception {
        WorkerConfig config = WorkerConfig.load(Path.of(args[0]));
        PrintStream stdout = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        AtomicBoolean running = new AtomicBoolean(true);
        Lingering lingering = new Lingering();
        IncrementLoop.Progress progress = new IncrementLoop.Progress();
        List<Thread> threads = new ArrayList<>();
        try (HistoryWriter history = new HistoryWriter(config.historyFile());
                HikariDataSource pool = pool(config);
                LockClient client = client(config)) {
            DataSource dataSource = dataSource(config, pool);
            for (int i = 0; i < config.threads(); i++) {
                IncrementLoop loop =
                        new IncrementLoop(config, i, client, dataSource, history, lingering, running, progress, stdout);
                Thread thread = new Thread(loop, config.id() + "-op-" + i);
                threads.add(thread);
            }
            Thread reporter = new Thread(() -> report(progress, running, stdout), config.id() + "-progress");
            reporter.setDaemon(true);
            say(stdout, "ready");
            threads.forEach(Thread::start);
            reporter.start();
            readCommands(lingering, stdout);
            running.set(false);
            long deadline = System.nanoTime() + STOP_GRACE.toNanos();
            for (Thread thread : threads) {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
            report(progress, stdout);
        }
        say(stdout, "stopped");
        // jetcd, the ZooKeeper client and Hikari may leave non-daemon threads behind; the history is closed, the worker
        // is done.
        System.exit(0);
    }

    private static void readCommands(Lingering lingering, PrintStream stdout) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.equals("stop")) {
                return;
            }
            if (line.startsWith("linger ")) {
                lingering.order(Linger.parse(line));
            } else if (line.equals("nolinger")) {
                lingering.withdraw();
            } else if (line.equals("endlinger")) {
                lingering.end();
            } else if (!line.isBlank()) {
                say(stdout, "unknown-command " + line);
            }
        }
    }

    private static DataSource dataSource(WorkerConfig config, DataSource pool) {
        FenceGuard.Builder guard = FenceGuard.builder().table(config.tables().fence());
        return switch (config.guard()) {
            case CLIENT -> new FencedDataSource(pool, guard.build());
            case TRIGGERS_ONLY ->
                new FencedDataSource(
                        pool,
                        guard.protectedTables(config.tables().written())
                                .checkInClient(false)
                                .build());
            case OFF -> pool;
        };
    }

    private static LockClient client(WorkerConfig config) {
        LockBackend backend = switch (config.store()) {
            case ETCD ->
                EtcdLockBackend.builder()
                        .endpoints(config.endpoints())
                        .namespace(config.namespace())
                        .instanceId(config.id())
                        .build();
            case ZOOKEEPER ->
                ZooKeeperLockBackend.builder()
                        .connectString(String.join(",", config.endpoints()))
                        .namespace(config.namespace())
                        .instanceId(config.id())
                        .build();
        };
        return LockClient.builder(backend)
                .defaultLeaseTtl(config.leaseTtl())
                .defaultWaitTimeout(config.waitTimeout())
                .build();
    }

    private static HikariDataSource pool(WorkerConfig config) {
        HikariConfig hikari = new HikariConfig();
        hikari.setPoolName(config.id());
        hikari.setJdbcUrl(config.jdbcUrl());
        hikari.setUsername(config.jdbcUser());
        hikari.setPassword(config.jdbcPassword());
        hikari.setMaximumPoolSize(config.threads());
        hikari.setMinimumIdle(config.threads());
        hikari.setAutoCommit(false);
        hikari.setConnectionTimeout(10_000);
        // Bounded waits: a transaction blocked behind a paused holder's row lock fails instead of hanging.
        hikari.addDataSourceProperty("options", "-c lock_timeout=15000 -c statement_timeout=30000");
        return new HikariDataSource(hikari);
    }

    private static void report(IncrementLoop.Progress progress, AtomicBoolean running, PrintStream stdout) {
        while (running.get()) {
            report(progress, stdout);
            try {
                Thread.sleep(1_000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static void report(IncrementLoop.Progress progress, PrintStream stdout) {
        say(
                stdout,
                "progress " + progress.ok().get() + " " + progress.fail().get() + " "
                        + progress.info().get());
    }

    private static void say(PrintStream stdout, String line) {
        synchronized (stdout) {
            stdout.println(line);
            stdout.flush();
        }
    }
}
