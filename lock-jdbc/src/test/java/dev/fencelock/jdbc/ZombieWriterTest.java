package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.fault.FaultProxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The zombie: client A holds the lock, reads a counter, then goes silent (its etcd traffic is
 * black-holed, as in a long GC pause or a partition). Its lease expires, client B takes the lock
 * with a larger token, and writes and commits through the fenced data source. When A wakes up and
 * writes under its old fence, its write must be refused and B's data must stay.
 *
 * <p>Two variants: A's fence carries its lease, so the guard refuses locally once the lease is
 * known lost (invariant 6); or A's fence carries no lease, so only the database can refuse it
 * (invariant 3), which is what protects a client that is wrong about its own lease.
 */
class ZombieWriterTest {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = this.closeables.size() - 1; i >= 0; i--) {
            this.closeables.get(i).close();
        }
        assertThat(FencingContext.all()).isEmpty();
    }

    static Stream<Arguments> databasesAndVariants() {
        return Stream.of(FencingDatabase.values())
                .flatMap(database -> Stream.of(Arguments.of(database, true), Arguments.of(database, false)));
    }

    @ParameterizedTest(name = "{0}, A''s fence knows its lease: {1}")
    @MethodSource("databasesAndVariants")
    void pausedHolderIsRefusedAfterTheNextHolderCommitted(FencingDatabase database, boolean fenceKnowsLease)
            throws Exception {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String resource = "counter:" + suffix;
        Tables tables = closeLater(new Tables(database.dataSource(), suffix));
        DataSource fenced = new FencedDataSource(tables.raw, tables.guard);

        FaultProxy proxy = closeLater(FaultProxy.forEndpoint(etcd.endpoints().get(0)));
        LockClient clientA = closeLater(client(proxy.endpoint()));
        LockClient clientB = closeLater(client(etcd.endpoints().get(0)));

        // A acquires with a short lease and reads under its fence. Its session lease is granted
        // first, so that a busy machine does not spend part of the short lease on the grant.
        clientA.acquire(LockRequest.builder("warm-up:" + suffix)
                        .leaseTtl(Duration.ofSeconds(3))
                        .build())
                .release();
        LockLease leaseA = clientA.acquire(
                LockRequest.builder(resource).leaseTtl(Duration.ofSeconds(3)).build());
        long tokenA = leaseA.fencingToken();
        Fence fenceA = new Fence(resource, tokenA, fenceKnowsLease ? leaseA : null);
        try (FencingContext.Scope scope = FencingContext.push(fenceA)) {
            assertThat(readInTransaction(fenced, tables)).isZero();
        }

        // A stalls: no renewals reach etcd, the lease runs out.
        proxy.blackhole();

        // B waits for the lock, gets a larger token, and writes and commits under its fence.
        LockLease leaseB = closeLater(clientB.acquire(LockRequest.builder(resource)
                .leaseTtl(Duration.ofSeconds(10))
                .waitTimeout(Duration.ofSeconds(30))
                .build()));
        assertThat(leaseB.fencingToken()).isGreaterThan(tokenA);
        try (FencingContext.Scope scope = FencingContext.open(leaseB)) {
            writeInTransaction(fenced, tables, 100);
        }

        // A wakes up and writes what it computed from its stale read.
        proxy.restore();
        try (FencingContext.Scope scope = FencingContext.push(fenceA)) {
            assertThatThrownBy(() -> writeInTransaction(fenced, tables, 1))
                    .isInstanceOf(FencingTokenRejectedException.class)
                    .hasMessageContaining(resource)
                    .hasMessageContaining("token " + tokenA)
                    .hasMessageContaining(fenceKnowsLease ? "no longer held" : "token " + leaseB.fencingToken());
        }

        assertThat(tables.counter()).isEqualTo(100);
        assertThat(tables.storedToken(resource)).isEqualTo(leaseB.fencingToken());
        assertThat(leaseA.isValid()).isFalse();
    }

    private static long readInTransaction(DataSource fenced, Tables tables) throws SQLException {
        try (Connection connection = fenced.getConnection()) {
            connection.setAutoCommit(false);
            long value = tables.counter(connection);
            connection.commit();
            return value;
        }
    }

    private static void writeInTransaction(DataSource fenced, Tables tables, long value) throws SQLException {
        try (Connection connection = fenced.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement statement =
                    connection.prepareStatement("UPDATE " + tables.counterTable + " SET val = ? WHERE name = 'c'")) {
                statement.setLong(1, value);
                statement.executeUpdate();
                connection.commit();
            } catch (SQLException | RuntimeException ex) {
                connection.rollback();
                throw ex;
            }
        }
    }

    private LockClient client(String endpoint) {
        // A fresh client's first call sets up its channel; on a loaded machine that took over 2 s. The
        // stall under test is the proxy's blackhole and the lease's local deadline, not this timeout.
        EtcdLockBackend backend = EtcdLockBackend.builder()
                .endpoints(endpoint)
                .requestTimeout(Duration.ofSeconds(10))
                .build();
        return LockClient.builder(backend).build();
    }

    private <T extends AutoCloseable> T closeLater(T closeable) {
        this.closeables.add(closeable);
        return closeable;
    }

    /** A fence table and a one-row counter table for one test, dropped on close. */
    private static final class Tables implements AutoCloseable {

        final DataSource raw;

        final FenceGuard guard;

        final String counterTable;

        Tables(DataSource raw, String suffix) throws SQLException {
            this.raw = raw;
            this.guard = FenceGuard.builder().table("fence_" + suffix).build();
            this.counterTable = "counter_" + suffix;
            try (Connection connection = raw.getConnection();
                    Statement statement = connection.createStatement()) {
                this.guard.createTableIfMissing(connection);
                statement.execute("CREATE TABLE " + this.counterTable
                        + " (name VARCHAR(16) NOT NULL PRIMARY KEY, val BIGINT NOT NULL)");
                statement.execute("INSERT INTO " + this.counterTable + " (name, val) VALUES ('c', 0)");
            }
        }

        long counter() throws SQLException {
            try (Connection connection = this.raw.getConnection()) {
                return counter(connection);
            }
        }

        long counter(Connection connection) throws SQLException {
            try (Statement statement = connection.createStatement();
                    ResultSet rows =
                            statement.executeQuery("SELECT val FROM " + this.counterTable + " WHERE name = 'c'")) {
                assertThat(rows.next()).isTrue();
                return rows.getLong(1);
            }
        }

        long storedToken(String resource) throws SQLException {
            try (Connection connection = this.raw.getConnection();
                    PreparedStatement statement = connection.prepareStatement(
                            "SELECT token FROM " + this.guard.table() + " WHERE resource = ?")) {
                statement.setString(1, resource);
                try (ResultSet rows = statement.executeQuery()) {
                    assertThat(rows.next()).isTrue();
                    return rows.getLong(1);
                }
            }
        }

        @Override
        public void close() throws SQLException {
            try (Connection connection = this.raw.getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("DROP TABLE IF EXISTS " + this.guard.table());
                statement.execute("DROP TABLE IF EXISTS " + this.counterTable);
            }
        }
    }
}
