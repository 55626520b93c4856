package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class FencedDataSourceTest {

    @AfterEach
    void noFenceLeaks() {
        assertThat(FencingContext.all()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void firstStatementOfEachTransactionRunsTheGuardOnce(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            RecordingDataSource recording = new RecordingDataSource(fixture.dataSource);
            DataSource fenced = new FencedDataSource(recording.dataSource, fixture.guard);
            String upsert = FenceDialect.valueOf(database.name()).upsertSql(fixture.guard.table());

            try (FencingContext.Scope scope = FencingContext.push(new Fence("stock:apple", 9, null));
                    Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                fixture.insertStock(connection, "apple", 100);
                fixture.setQty(connection, "apple", 99);
                assertThat(qtyOn(connection, fixture, "apple")).isEqualTo(99);
                connection.commit();
                assertThat(recording.count(upsert)).isEqualTo(1);

                fixture.setQty(connection, "apple", 98);
                fixture.setQty(connection, "apple", 97);
                connection.commit();
                assertThat(recording.count(upsert)).isEqualTo(2);
            }

            assertThat(fixture.storedToken("stock:apple")).isEqualTo(9L);
            assertThat(fixture.qty("apple")).isEqualTo(97L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void statementsOutsideAFenceAreLeftAlone(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            RecordingDataSource recording = new RecordingDataSource(fixture.dataSource);
            DataSource fenced = new FencedDataSource(recording.dataSource, fixture.guard);

            try (Connection connection = fenced.getConnection()) {
                fixture.insertStock(connection, "apple", 100); // auto-commit is fine without a fence
                connection.setAutoCommit(false);
                fixture.setQty(connection, "apple", 99);
                connection.commit();
            }

            assertThat(recording.count(fixture.fenceTable)).isZero();
            assertThat(fixture.fenceRows()).isZero();
            assertThat(fixture.qty("apple")).isEqualTo(99L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void fencedWriteInAutoCommitModeIsRefused(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database);
                FencingContext.Scope scope = FencingContext.push(new Fence("stock:apple", 9, null));
                Connection connection = new FencedDataSource(fixture.dataSource, fixture.guard).getConnection()) {

            assertThatThrownBy(() -> fixture.insertStock(connection, "apple", 100))
                    .isExactlyInstanceOf(LockException.class)
                    .hasMessageContaining("'stock:apple'")
                    .hasMessageContaining("outside a transaction")
                    .hasMessageContaining("@Transactional");

            scope.close();
            assertThat(fixture.qty("apple")).isNull();
            assertThat(fixture.fenceRows()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void staleTokenFailsTheFirstStatementAndNothingIsWritten(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            DataSource fenced = new FencedDataSource(fixture.dataSource, fixture.guard);
            try (FencingContext.Scope newer = FencingContext.push(new Fence("stock:apple", 9, null));
                    Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                fixture.insertStock(connection, "apple", 100);
                connection.commit();
            }

            try (FencingContext.Scope stale = FencingContext.push(new Fence("stock:apple", 5, null));
                    Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                assertThatThrownBy(() -> fixture.setQty(connection, "apple", 1))
                        .isInstanceOf(FencingTokenRejectedException.class)
                        .hasMessageContaining("token 5")
                        .hasMessageContaining("token 9");
                connection.rollback();
            }

            assertThat(fixture.qty("apple")).isEqualTo(100L);
            assertThat(fixture.storedToken("stock:apple")).isEqualTo(9L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void rolledBackGuardIsRunAgainInTheNextTransaction(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            DataSource fenced = new FencedDataSource(fixture.dataSource, fixture.guard);
            try (FencingContext.Scope scope = FencingContext.push(new Fence("stock:apple", 9, null));
                    Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                fixture.insertStock(connection, "apple", 100);
                connection.rollback(); // takes the fence row with it

                fixture.insertStock(connection, "apple", 50);
                connection.commit();
            }

            assertThat(fixture.storedToken("stock:apple")).isEqualTo(9L);
            assertThat(fixture.qty("apple")).isEqualTo(50L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void everyFencedResourceOfTheThreadIsGuarded(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            DataSource fenced = new FencedDataSource(fixture.dataSource, fixture.guard);
            try (FencingContext.Scope outer = FencingContext.push(new Fence("warehouse:1", 4, null));
                    FencingContext.Scope inner = FencingContext.push(new Fence("stock:apple", 9, null));
                    Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                fixture.insertStock(connection, "apple", 100);
                connection.commit();
            }

            assertThat(fixture.storedToken("warehouse:1")).isEqualTo(4L);
            assertThat(fixture.storedToken("stock:apple")).isEqualTo(9L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void leaseLostMidTransactionStopsTheNextStatementLocally(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            StubLease lease = new StubLease("stock:apple", 9);
            try (FencingContext.Scope scope = FencingContext.open(lease.lease());
                    Connection connection = new FencedDataSource(fixture.dataSource, fixture.guard).getConnection()) {
                connection.setAutoCommit(false);
                fixture.insertStock(connection, "apple", 100);
                lease.lose();

                assertThatThrownBy(() -> fixture.setQty(connection, "apple", 1))
                        .isInstanceOf(FencingTokenRejectedException.class)
                        .hasMessageContaining("no longer held");
                connection.rollback();
            }

            assertThat(fixture.qty("apple")).isNull();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void wrapperContractHoldsForDataSourceConnectionAndStatement(TestDatabase database) throws SQLException {
        DataSource target = database.dataSource();
        FencedDataSource fenced = new FencedDataSource(target, FenceGuard.create());

        assertThat(fenced.unwrap(FencedDataSource.class)).isSameAs(fenced);
        assertThat(fenced.unwrap(DataSource.class)).isSameAs(fenced);
        assertThat(fenced.isWrapperFor(target.getClass())).isTrue();
        assertThat(fenced.unwrap(target.getClass())).isSameAs(target);
        try (Connection connection = fenced.getConnection();
                Statement statement = connection.createStatement();
                PreparedStatement prepared = connection.prepareStatement("SELECT 1")) {
            assertThat(statement.getConnection()).isSameAs(connection);
            assertThat(prepared.getConnection()).isSameAs(connection);
            assertThat(connection.unwrap(Connection.class)).isSameAs(connection);
            assertThat(connection.isWrapperFor(Connection.class)).isTrue();
            assertThat(connection).isEqualTo(connection).isNotEqualTo(target);
            try (ResultSet rows = prepared.executeQuery()) {
                assertThat(rows.next()).isTrue();
            }
        }
    }

    private static int qtyOn(Connection connection, FenceFixture fixture, String sku) throws SQLException {
        try (PreparedStatement statement =
                connection.prepareStatement("SELECT qty FROM " + fixture.stockTable + " WHERE sku = ?")) {
            statement.setString(1, sku);
            try (ResultSet rows = statement.executeQuery()) {
                assertThat(rows.next()).isTrue();
                return rows.getInt(1);
            }
        }
    }
}
