package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every JDBC object reachable from a fenced connection is fenced too: a statement reached through a
 * result set or the metadata, the connection behind the metadata, an updatable result set. Each
 * case: holder A (token 9) commits a guarded transaction, holder B (token 10) then writes, and A
 * reaches the database through the object under test in a new transaction. Unfenced, that object
 * would write without presenting A's fence, after B.
 */
class FencedDriverObjectsTest {

    private static final String RESOURCE = "stock:apple";

    @AfterEach
    void noFenceLeaks() {
        assertThat(FencingContext.all()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void theMetadataLeadsBackToTheFencedConnection(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = seeded(database);
                FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                Connection connection = fenced(fixture).getConnection()) {
            connection.setAutoCommit(false);
            DatabaseMetaData metadata = connection.getMetaData();
            assertThat(metadata.getConnection()).isSameAs(connection);
            try (ResultSet tables = metadata.getTables(null, null, "%", null)) {
                Statement behind = tables.getStatement();
                assertThat(behind == null || behind.getConnection() == connection)
                        .isTrue();
            }
            fixture.newHolderWrites(RESOURCE, 10, "apple", 50);

            assertThatThrownBy(() -> fixture.setQty(metadata.getConnection(), "apple", 1))
                    .isInstanceOf(FencingTokenRejectedException.class);
            connection.rollback();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aResultSetLeadsBackToTheFencedStatement(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = seeded(database);
                FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                Connection connection = fenced(fixture).getConnection();
                Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            Statement behind;
            try (ResultSet rows = statement.executeQuery("SELECT qty FROM " + fixture.stockTable)) {
                behind = rows.getStatement();
            }
            assertThat(behind).isSameAs(statement);
            connection.commit();
            fixture.newHolderWrites(RESOURCE, 10, "apple", 50);

            assertThatThrownBy(() ->
                            behind.executeUpdate("UPDATE " + fixture.stockTable + " SET qty = 1 WHERE sku = 'apple'"))
                    .isInstanceOf(FencingTokenRejectedException.class);
            connection.rollback();
            assertThat(fixture.qty("apple")).isEqualTo(50L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void generatedKeysLeadBackToTheFencedStatement(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = seeded(database);
                FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                Connection connection = fenced(fixture).getConnection();
                PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO " + fixture.stockTable + " (sku, qty) VALUES (?, ?)",
                        Statement.RETURN_GENERATED_KEYS)) {
            connection.setAutoCommit(false);
            insert.setString(1, "pear");
            insert.setInt(2, 5);
            insert.executeUpdate();
            Statement behind;
            try (ResultSet keys = insert.getGeneratedKeys()) {
                behind = keys.getStatement();
            }
            assertThat(behind == null || behind == insert).isTrue();
            connection.commit();
            fixture.newHolderWrites(RESOURCE, 10, "apple", 50);

            if (behind != null) {
                assertThatThrownBy(() -> behind.executeUpdate(
                                "UPDATE " + fixture.stockTable + " SET qty = 1 WHERE sku = 'apple'"))
                        .isInstanceOf(FencingTokenRejectedException.class);
            }
            connection.rollback();
            assertThat(fixture.qty("apple")).isEqualTo(50L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void anUpdatableResultSetRunsTheGuardBeforeItWrites(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = seeded(database);
                FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                Connection connection = fenced(fixture).getConnection();
                Statement statement =
                        connection.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_UPDATABLE)) {
            connection.setAutoCommit(false);
            try (ResultSet rows = statement.executeQuery(
                    "SELECT sku, qty, fence_token FROM " + fixture.stockTable + " WHERE sku = 'apple'")) {
                assertThat(rows.next()).isTrue();
                connection.commit();
                fixture.newHolderWrites(RESOURCE, 10, "apple", 50);

                rows.updateInt("qty", 1);
                assertThatThrownBy(rows::updateRow).isInstanceOf(FencingTokenRejectedException.class);
            }
            connection.rollback();
            assertThat(fixture.qty("apple")).isEqualTo(50L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void unwrappingToTheDriversOwnTypesIsRefusedUnderAFence(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = seeded(database);
                Connection connection = fenced(fixture).getConnection()) {
            Class<?> driverType = connection.unwrap(Connection.class).getClass();
            assertThat(driverType).isNotNull();
            try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null))) {
                // The driver's own API (COPY, large objects) writes without a statement the guard sees.
                Class<?> target = FencedConnectionDriverType.of(database);
                assertThatThrownBy(() -> connection.unwrap(target))
                        .isInstanceOf(LockException.class)
                        .hasMessageContaining("fence");
                assertThat(connection.unwrap(Connection.class)).isSameAs(connection);
            }
            assertThat(connection.unwrap(FencedConnectionDriverType.of(database)))
                    .isNotNull();
        }
    }

    private static FenceFixture seeded(TestDatabase database) throws SQLException {
        FenceFixture fixture = new FenceFixture(database);
        try (Connection connection = fixture.dataSource.getConnection()) {
            fixture.insertStock(connection, "apple", 100);
        }
        return fixture;
    }

    private static DataSource fenced(FenceFixture fixture) {
        return new FencedDataSource(fixture.dataSource, fixture.guard);
    }

    /** The driver's own connection interface or class, which unwrap hands out unfenced. */
    private static final class FencedConnectionDriverType {

        static Class<?> of(TestDatabase database) {
            return switch (database) {
                case H2 -> org.h2.jdbc.JdbcConnection.class;
                case POSTGRESQL -> org.postgresql.PGConnection.class;
                case MARIADB -> org.mariadb.jdbc.Connection.class;
            };
        }
    }
}
