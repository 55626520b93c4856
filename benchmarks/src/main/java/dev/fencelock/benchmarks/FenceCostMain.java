package dev.fencelock.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.jdbc.FenceProtection;
import dev.fencelock.jdbc.FencedDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * What the two layers of the fence cost a write: one transaction that updates one row and commits,
 * under a fence, on PostgreSQL and MariaDB, with no fence (the floor), the client guard only, the
 * protected table's trigger only, and both. Each thread writes its own resource and rows, so the
 * figures are the cost of the checks, not of waiting for another holder. Closed loop, a fixed time
 * per case, the cases' order reversed every other round; latency in HdrHistogram.
 *
 * <pre>
 * java -cp "benchmarks/target/benchmarks-0.1.0-SNAPSHOT.jar:benchmarks/target/lib/*" \
 *      -Dfence.seconds=10 -Dfence.rounds=4 -Dfence.threads=1,8 dev.fencelock.benchmarks.FenceCostMain
 * </pre>
 */
public final class FenceCostMain {

    /** How a write is fenced. */
    enum Layers {
        NONE,
        GUARD_ONLY,
        TRIGGERS_ONLY,
        BOTH
    }

    private record Result(
            String database, Layers layers, int threads, long writes, double seconds, Histogram latency) {}

    private FenceCostMain() {}

    public static void main(String[] args) throws Exception {
        int seconds = Integer.getInteger("fence.seconds", 10);
        int rounds = Integer.getInteger("fence.rounds", 4);
        List<Integer> threads = new ArrayList<>();
        for (String value : System.getProperty("fence.threads", "1,8").split(",")) {
            threads.add(Integer.parseInt(value.trim()));
        }
        List<Result> results = new ArrayList<>();
        for (String database :
                System.getProperty("fence.databases", "postgresql,mariadb").split(",")) {
            for (int concurrency : threads) {
                results.addAll(run(database.trim(), concurrency, seconds, rounds));
            }
        }
        System.out.println();
        System.out.println("| database | fence | threads | writes/s | p50 ms | p99 ms | writes/s vs no fence |");
        System.out.println("|---|---|---:|---:|---:|---:|---:|");
        for (Result result : results) {
            Result floor = results.stream()
                    .filter(other -> other.database.equals(result.database)
                            && other.threads == result.threads
                            && other.layers == Layers.NONE)
                    .findFirst()
                    .orElseThrow();
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %s | %d | %,.0f | %.2f | %.2f | %.2f× |%n",
                    result.database,
                    result.layers.name().toLowerCase(Locale.ROOT).replace('_', ' '),
                    result.threads,
                    result.writes / result.seconds,
                    result.latency.getValueAtPercentile(50) / 1e6,
                    result.latency.getValueAtPercentile(99) / 1e6,
                    (result.writes / result.seconds) / (floor.writes / floor.seconds));
        }
    }

    private static List<Result> run(String database, int threads, int seconds, int rounds) throws Exception {
        String suffix = Long.toString(System.nanoTime(), 36);
        String stock = "fc_stock_" + suffix;
        String fence = "fc_fence_" + suffix;
        try (HikariDataSource pool = pool(database, threads)) {
            FenceGuard plain = FenceGuard.builder().table(fence).build();
            try (Connection connection = pool.getConnection();
                    Statement statement = connection.createStatement()) {
                plain.createTableIfMissing(connection);
                statement.execute(
                        "CREATE TABLE " + stock + " (sku VARCHAR(64) NOT NULL PRIMARY KEY, qty INT NOT NULL)");
                for (int thread = 0; thread < threads; thread++) {
                    statement.execute("INSERT INTO " + stock + " VALUES ('s" + thread + "', 0)");
                }
            }
            List<Result> results = new ArrayList<>();
            try {
                for (int round = 0; round < rounds; round++) {
                    Layers[] order = Layers.values();
                    for (int i = 0; i < order.length; i++) {
                        Layers layers = order[(round % 2 == 0) ? i : order.length - 1 - i];
                        protect(pool, database, fence, stock, layers != Layers.NONE && layers != Layers.GUARD_ONLY);
                        Result result = measure(database, pool, fence, stock, layers, threads, seconds);
                        results.add(result);
                        System.out.printf(
                                Locale.ROOT,
                                "%s %-13s %2d threads round %d: %,.0f writes/s%n",
                                database,
                                layers,
                                threads,
                                round + 1,
                                result.writes / result.seconds);
                    }
                }
            } finally {
                try (Connection connection = pool.getConnection();
                        Statement statement = connection.createStatement()) {
                    statement.execute("DROP TABLE IF EXISTS " + stock);
                    statement.execute("DROP TABLE IF EXISTS " + fence);
                }
            }
            return merge(results);
        }
    }

    /** One result per case: the rounds' writes and time added, their histograms merged. */
    private static List<Result> merge(List<Result> rounds) {
        List<Result> merged = new ArrayList<>();
        for (Layers layers : Layers.values()) {
            Histogram latency = new Histogram(TimeUnit.MINUTES.toNanos(1), 3);
            long writes = 0;
            double seconds = 0;
            Result any = null;
            for (Result round : rounds) {
                if (round.layers == layers) {
                    latency.add(round.latency);
                    writes += round.writes;
                    seconds += round.seconds;
                    any = round;
                }
            }
            merged.add(new Result(any.database, layers, any.threads, writes, seconds, latency));
        }
        return merged;
    }

    private static void protect(DataSource pool, String database, String fence, String stock, boolean triggers)
            throws SQLException {
        try (Connection connection = pool.getConnection();
                Statement statement = connection.createStatement()) {
            FenceGuard guard =
                    FenceGuard.builder().table(fence).protectedTables(stock).build();
            if (triggers) {
                guard.protectTables(connection);
            } else {
                for (String sql : FenceProtection.removalDdl(guard.dialect(connection), stock)) {
                    statement.execute(sql);
                }
            }
        }
    }

    private static Result measure(
            String database, DataSource pool, String fence, String stock, Layers layers, int threads, int seconds)
            throws InterruptedException {
        DataSource dataSource = switch (layers) {
            case NONE -> pool;
            case GUARD_ONLY ->
                new FencedDataSource(pool, FenceGuard.builder().table(fence).build());
            case TRIGGERS_ONLY ->
                new FencedDataSource(
                        pool,
                        FenceGuard.builder()
                                .table(fence)
                                .protectedTables(stock)
                                .checkInClient(false)
                                .build());
            case BOTH ->
                new FencedDataSource(
                        pool,
                        FenceGuard.builder().table(fence).protectedTables(stock).build());
        };
        Histogram latency = new ConcurrentHistogram(TimeUnit.MINUTES.toNanos(1), 3);
        AtomicLong writes = new AtomicLong();
        CountDownLatch done = new CountDownLatch(threads);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        long started = System.nanoTime();
        for (int thread = 0; thread < threads; thread++) {
            String sku = "s" + thread;
            Thread worker = new Thread(() -> {
                try (FencingContext.Scope scope = FencingContext.push(new Fence("cost:" + sku, 7, null))) {
                    int qty = 0;
                    while (System.nanoTime() < end) {
                        long before = System.nanoTime();
                        write(dataSource, stock, sku, ++qty);
                        latency.recordValue(System.nanoTime() - before);
                        writes.incrementAndGet();
                    }
                } catch (SQLException ex) {
                    throw new IllegalStateException(database + " " + layers + ": " + ex.getMessage(), ex);
                } finally {
                    done.countDown();
                }
            });
            worker.start();
        }
        done.await();
        double took = (System.nanoTime() - started) / 1e9;
        return new Result(database, layers, threads, writes.get(), took, latency);
    }

    private static void write(DataSource dataSource, String stock, String sku, int qty) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement update =
                    connection.prepareStatement("UPDATE " + stock + " SET qty = ? WHERE sku = ?")) {
                update.setInt(1, qty);
                update.setString(2, sku);
                update.executeUpdate();
            }
            connection.commit();
        }
    }

    private static HikariDataSource pool(String database, int threads) {
        HikariConfig config = new HikariConfig();
        if (database.equals("postgresql")) {
            config.setJdbcUrl(env("FENCELOCK_PG_URL", "jdbc:postgresql://127.0.0.1:5432/fencelock"));
        } else {
            config.setJdbcUrl(env("FENCELOCK_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/fencelock"));
        }
        config.setUsername("fencelock");
        config.setPassword("fencelock");
        config.setMaximumPoolSize(threads + 1);
        return new HikariDataSource(config);
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return (value != null && !value.isBlank()) ? value : fallback;
    }
}
