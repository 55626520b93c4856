package dev.fencelock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.FencingContext;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.jdbc.FencedDataSource;
import dev.fencelock.test.fault.ProcessControl;
import dev.fencelock.test.zookeeper.ZooKeeperEnsemble;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The zombie on ZooKeeper: a holder JVM frozen with {@code SIGSTOP} past its session. The ensemble
 * expires the session, the next holder gets the lock with a larger token and writes; the frozen
 * holder, let go again, writes late under its old token, and PostgreSQL keeps the new holder's value.
 */
class ZooKeeperFrozenHolderTest {

    private static final String JDBC_URL =
            System.getenv().getOrDefault("FENCELOCK_PG_URL", "jdbc:postgresql://127.0.0.1:5432/fencelock");

    private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    private final String fenceTable = "fence_" + this.suffix;

    private final String dataTable = "zk_data_" + this.suffix;

    private ZooKeeperEnsemble ensemble;

    private Process holder;

    private final LinkedBlockingQueue<String> reports = new LinkedBlockingQueue<>();

    @BeforeEach
    void createTables() throws SQLException {
        try (Connection connection = DriverManager.getConnection(JDBC_URL, "fencelock", "fencelock");
                Statement statement = connection.createStatement()) {
            FenceGuard.builder().table(this.fenceTable).build().createTableIfMissing(connection);
            statement.execute("CREATE TABLE " + this.dataTable + " (id INT PRIMARY KEY, v BIGINT NOT NULL)");
            statement.execute("INSERT INTO " + this.dataTable + " (id, v) VALUES (1, 0)");
        }
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (this.holder != null) {
            // SIGKILL, which also ends a paused process; nothing happens if it has exited already.
            this.holder.destroyForcibly();
            this.holder.waitFor(10, TimeUnit.SECONDS);
        }
        if (this.ensemble != null) {
            this.ensemble.close();
        }
        try (Connection connection = DriverManager.getConnection(JDBC_URL, "fencelock", "fencelock");
                Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + this.dataTable);
            statement.execute("DROP TABLE IF EXISTS " + this.fenceTable);
        }
    }

    @Test
    void aHolderFrozenPastItsSessionIsRefusedByTheDatabaseWhenItWritesLate() throws Exception {
        this.ensemble = ZooKeeperEnsemble.standalone();
        this.holder = launch("frozen", 3);
        long frozenToken = Long.parseLong(report("token ", 60));

        ProcessControl.pause(this.holder.pid());
        PGSimpleDataSource database = new PGSimpleDataSource();
        database.setURL(JDBC_URL);
        database.setUser("fencelock");
        database.setPassword("fencelock");
        FencedDataSource fenced = new FencedDataSource(
                database, FenceGuard.builder().table(this.fenceTable).build());
        try (LockClient client = LockClient.builder(ZooKeeperLockBackend.builder()
                        .connectString(this.ensemble.connectString())
                        .build())
                .build()) {
            // Granted once the ensemble has expired the frozen holder's 3 s session.
            try (LockLease next = client.acquire(LockRequest.builder("frozen")
                    .waitTimeout(Duration.ofSeconds(60))
                    .build())) {
                assertThat(next.fencingToken()).isGreaterThan(frozenToken);
                write(fenced, next, 2);
            }
        }

        ProcessControl.resume(this.holder.pid());
        send("write 1");
        assertThat(report("valid ", 60)).isEqualTo("false");
        assertThat(report("write ", 60)).startsWith("refused");
        assertThat(value()).isEqualTo(2);
        send("exit");
        assertThat(this.holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    private void write(FencedDataSource fenced, LockLease lease, long value) throws SQLException {
        try (FencingContext.Scope fence = FencingContext.open(lease);
                Connection connection = fenced.getConnection();
                PreparedStatement update =
                        connection.prepareStatement("UPDATE " + this.dataTable + " SET v = ? WHERE id = 1")) {
            connection.setAutoCommit(false);
            update.setLong(1, value);
            update.executeUpdate();
            connection.commit();
        }
    }

    private long value() throws SQLException {
        try (Connection connection = DriverManager.getConnection(JDBC_URL, "fencelock", "fencelock");
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT v FROM " + this.dataTable + " WHERE id = 1")) {
            assertThat(rows.next()).isTrue();
            return rows.getLong(1);
        }
    }

    private Process launch(String resource, long ttlSeconds) throws IOException {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String surefire = System.getProperty("surefire.test.class.path");
        String classPath = (surefire != null && !surefire.isBlank()) ? surefire : System.getProperty("java.class.path");
        Process process = new ProcessBuilder(List.of(
                        java,
                        "-Xmx128m",
                        "-XX:+UseSerialGC",
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        classPath,
                        FrozenHolderMain.class.getName(),
                        this.ensemble.connectString(),
                        resource,
                        Long.toString(ttlSeconds),
                        JDBC_URL,
                        this.fenceTable,
                        this.dataTable))
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        Thread reader = new Thread(() -> {
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    this.reports.add(line);
                }
            } catch (IOException ex) {
                // The process ended.
            }
        });
        reader.setDaemon(true);
        reader.start();
        return process;
    }

    /** The next report that starts with {@code prefix}, without the prefix; a bound for a hung process. */
    private String report(String prefix, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() - deadline < 0) {
            String line = this.reports.poll(100, TimeUnit.MILLISECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line.substring(prefix.length());
            }
            if (line == null && !this.holder.isAlive()) {
                throw new IllegalStateException("The holder process exited before reporting '" + prefix + "'");
            }
        }
        throw new IllegalStateException("No '" + prefix + "' report within " + seconds + " s");
    }

    private void send(String line) throws IOException {
        OutputStream in = this.holder.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }
}
