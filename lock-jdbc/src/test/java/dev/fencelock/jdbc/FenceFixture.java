package dev.fencelock.jdbc;

import dev.fencelock.FencingContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A fence table and a business table ({@code stock}) with names unique to one test, dropped
 * again on close.
 */
final class FenceFixture implements AutoCloseable {

    final TestDatabase database;

    final DataSource dataSource;

    final String fenceTable;

    final String stockTable;

    final FenceGuard guard;

    FenceFixture(TestDatabase database) throws SQLException {
        this.database = database;
        this.dataSource = database.dataSource();
        String suffix =
                UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
        this.fenceTable = "fence_" + suffix;
        this.stockTable = "stock_" + suffix;
        this.guard = FenceGuard.builder().table(this.fenceTable).build();
        try (Connection connection = this.dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            this.guard.createTableIfMissing(connection);
            statement.execute(
                    "CREATE TABLE " + this.stockTable
                            + " (sku VARCHAR(64) NOT NULL PRIMARY KEY, qty INT NOT NULL, fence_token BIGINT DEFAULT 0 NOT NULL)");
        }
    }

    Connection transaction() throws SQLException {
        Connection connection = this.dataSource.getConnection();
        connection.setAutoCommit(false);
        return connection;
    }

    /** The token the fence table holds for {@code resource}, read in a new auto-commit connection. */
    @Nullable
    Long storedToken(String resource) throws SQLException {
        return queryLong("SELECT token FROM " + this.fenceTable + " WHERE resource = ?", resource);
    }

    long fenceRows() throws SQLException {
        return queryLong("SELECT COUNT(*) FROM " + this.fenceTable + " WHERE resource <> ?", "");
    }

    @Nullable
    Long qty(String sku) throws SQLException {
        return queryLong("SELECT qty FROM " + this.stockTable + " WHERE sku = ?", sku);
    }

    void insertStock(Connection connection, String sku, int qty) throws SQLException {
        try (PreparedStatement statement =
                connection.prepareStatement("INSERT INTO " + this.stockTable + " (sku, qty) VALUES (?, ?)")) {
            statement.setString(1, sku);
            statement.setInt(2, qty);
            statement.executeUpdate();
        }
    }

    void setQty(Connection connection, String sku, int qty) throws SQLException {
        try (PreparedStatement statement =
                connection.prepareStatement("UPDATE " + this.stockTable + " SET qty = ? WHERE sku = ?")) {
            statement.setInt(1, qty);
            statement.setString(2, sku);
            statement.executeUpdate();
        }
    }

    /**
     * A newer holder of {@code resource} (token {@code token}) guards and writes {@code qty} in a
     * transaction of its own, on a connection outside any fenced data source, and commits.
     */
    void newHolderWrites(String resource, long token, String sku, int qty) throws SQLException {
        try (Connection connection = transaction()) {
            this.guard.check(connection, new FencingContext.Fence(resource, token, null));
            setQty(connection, sku, qty);
            connection.commit();
        }
    }

    private @Nullable Long queryLong(String sql, String parameter) throws SQLException {
        try (Connection connection = this.dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, parameter);
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() ? rows.getLong(1) : null;
            }
        }
    }

    @Override
    public void close() throws SQLException {
        try (Connection connection = this.dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + this.fenceTable);
            statement.execute("DROP TABLE IF EXISTS " + this.stockTable);
        }
    }
}
