package dev.fencelock.verification.worker;

import dev.fencelock.FencingContext;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * One thread of a worker: increments random counters until told to stop, one operation at a time.
 *
 * <p>Each operation takes the key's lock, then in one transaction reads the counter, thinks, writes the counter
 * plus one, appends a history row, and commits; then it releases the lock. Its outcome is {@code ok} once commit
 * returned, {@code fail} when it is known not applied (not acquired, or rolled back before commit was called),
 * and {@code info} when commit was called but did not answer normally.
 */
final class IncrementLoop implements Runnable {

    private final WorkerConfig config;
    private final int thread;
    private final LockClient client;
    private final DataSource dataSource;
    private final HistoryWriter history;
    private final Lingering lingering;
    private final AtomicBoolean running;
    private final Progress progress;
    private final PrintStream stdout;
    private final Random random;
    private final String select;
    private final String update;
    private final String insert;
    private long sequence;

    /** Outcome counts across a worker's threads. */
    record Progress(AtomicLong ok, AtomicLong fail, AtomicLong info) {
        Progress() {
            this(new AtomicLong(), new AtomicLong(), new AtomicLong());
        }
    }

    IncrementLoop(
            WorkerConfig config,
            int thread,
            LockClient client,
            DataSource dataSource,
            HistoryWriter history,
            Lingering lingering,
            AtomicBoolean running,
            Progress progress,
            PrintStream stdout) {
        this.config = config;
        this.thread = thread;
        this.client = client;
        this.dataSource = dataSource;
        this.history = history;
        this.lingering = lingering;
        this.running = running;
        this.progress = progress;
        this.stdout = stdout;
        this.random = new Random(config.seed() * 31 + thread);
        RunTables tables = config.tables();
        // With the database alone the fence orders writes only: the read that decides the write locks its row,
        // as fencing.md asks of that mode, so it waits for the previous holder's commit.
        this.select = "SELECT value FROM " + tables.counters() + " WHERE key = ?"
                + (config.guard() == Guard.TRIGGERS_ONLY ? " FOR UPDATE" : "");
        this.update = "UPDATE " + tables.counters() + " SET value = ? WHERE key = ?";
        this.insert = "INSERT INTO " + tables.history()
                + " (key, token, worker, op_id, value_read, value_written, commit_seq) VALUES (?, ?, ?, ?, ?, ?,"
                + " nextval('" + tables.commitSequence() + "'))";
    }

    @Override
    public void run() {
        List<String> keys = config.keys();
        while (running.get()) {
            String key = keys.get(random.nextInt(keys.size()));
            String op = config.id() + "-" + thread + "-" + (++sequence);
            history.write("invoke", op, "worker", config.id(), "key", key);
            try {
                increment(op, key);
            } catch (RuntimeException | Error e) {
                // Nothing below lets an exception escape before commit; if one does, the history says unknown.
                history.write("info", op, "reason", "worker-error", "error", describe(e));
                progress.info().incrementAndGet();
            }
        }
    }

    private void increment(String op, String key) {
        LockLease lease;
        try {
            lease = client.acquire(LockRequest.builder(key)
                    .leaseTtl(config.leaseTtl())
                    .waitTimeout(config.waitTimeout())
                    .build());
        } catch (RuntimeException e) {
            fail(op, FailureReason.ofAcquire(e, config.store()), e);
            return;
        }
        long token = lease.fencingToken();
        history.write("acquired", op, "token", token);
        // The holder learning that its lock is gone (a force-release, an expired session) is part of the history.
        lease.onLost(cause -> history.write("lost", op, "error", describe(cause)));
        try (FencingContext.Scope fence = FencingContext.open(lease)) {
            transaction(op, key, token);
        } finally {
            long releaseFrom = System.nanoTime();
            try {
                boolean released = lease.release();
                history.write("released", op, "from", releaseFrom, "released", released);
            } catch (RuntimeException e) {
                history.write("released", op, "from", releaseFrom, "released", false, "error", describe(e));
            }
        }
    }

    private void transaction(String op, String key, long token) {
        linger(Linger.Phase.AFTER_ACQUIRE, op, key, token);
        boolean commitCalled = false;
        try (Connection connection = dataSource.getConnection()) {
            try {
                long read = read(connection, key);
                history.write("read", op, "value", read);
                if (!linger(Linger.Phase.AFTER_READ, op, key, token)) {
                    think();
                }
                write(connection, key, read + 1);
                record(connection, op, key, token, read);
                history.write("commit", op);
                commitCalled = true;
                connection.commit();
                history.write("ok", op, "token", token, "read", read, "written", read + 1);
                progress.ok().incrementAndGet();
            } catch (SQLException | RuntimeException e) {
                if (commitCalled) {
                    history.write("info", op, "reason", "commit-unknown", "error", describe(e));
                    progress.info().incrementAndGet();
                } else {
                    rollbackQuietly(connection);
                    fail(op, FailureReason.ofTransaction(e), e);
                }
            }
        } catch (SQLException e) {
            // Getting or closing the connection failed.
            if (commitCalled) {
                // Closing after an acknowledged commit changes nothing that was recorded.
                return;
            }
            fail(op, "db-connection", e);
        }
    }

    private long read(Connection connection, String key) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(select)) {
            statement.setString(1, key);
            try (ResultSet rows = statement.executeQuery()) {
                if (!rows.next()) {
                    throw new SQLException("no counter row for " + key);
                }
                return rows.getLong(1);
            }
        }
    }

    private void write(Connection connection, String key, long value) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(update)) {
            statement.setLong(1, value);
            statement.setString(2, key);
            if (statement.executeUpdate() != 1) {
                throw new SQLException("counter row of " + key + " not updated");
            }
        }
    }

    private void record(Connection connection, String op, String key, long token, long read) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(insert)) {
            statement.setString(1, key);
            statement.setLong(2, token);
            statement.setString(3, config.id());
            statement.setString(4, op);
            statement.setLong(5, read);
            statement.setLong(6, read + 1);
            statement.executeUpdate();
        }
    }

    /** Stays in {@code phase} if the orchestrator asked for it and no other thread took the order first. */
    private boolean linger(Linger.Phase phase, String op, String key, long token) {
        Lingering.Order order = lingering.take(phase);
        if (order == null) {
            return false;
        }
        history.write(
                "linger",
                op,
                "phase",
                phase.name(),
                "millis",
                order.linger().duration().toMillis());
        synchronized (stdout) {
            stdout.println("lingering " + phase + " " + op + " " + key + " " + token);
            stdout.flush();
        }
        order.stay();
        return true;
    }

    private void think() {
        long max = config.thinkMax().toMillis();
        if (max > 0) {
            sleep(random.nextInt((int) max + 1));
        }
    }

    private void fail(String op, String reason, Throwable cause) {
        history.write("fail", op, "reason", reason, "error", describe(cause));
        progress.fail().incrementAndGet();
    }

    private static void rollbackQuietly(Connection connection) {
        try {
            connection.rollback();
        } catch (SQLException | RuntimeException e) {
            // Closing the connection rolls back as well.
        }
    }

    private static String describe(Throwable e) {
        String text = e.getClass().getSimpleName() + ": " + e.getMessage();
        return text.length() > 300 ? text.substring(0, 300) : text;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
