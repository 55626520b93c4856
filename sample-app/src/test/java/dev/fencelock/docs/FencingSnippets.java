package dev.fencelock.docs;

import dev.fencelock.FencingContext;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.jdbc.FencedDataSource;
import dev.fencelock.jdbc.FencedWrites;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/** docs/fencing.md. */
class FencingSnippets {

    void fencedDataSource(LockClient client, DataSource pool) throws SQLException {
        FenceGuard guard = FenceGuard.builder()
                .table("fencelock_fence") // default; optionally schema.table
                .resourceLength(255) // default; must match the column
                .build(); // dialect detected from the connection, or .dialect(FenceDialect.H2)
        DataSource dataSource = new FencedDataSource(pool, guard);

        try (LockLease lease = client.acquire(LockRequest.of("stock:apple"));
                FencingContext.Scope fence = FencingContext.open(lease);
                Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            // first statement: the guard runs first on this connection, then the UPDATE
            update(connection, "apple", 1);
            connection.commit();
        }
    }

    FenceGuard scoped() {
        FenceGuard guard = FenceGuard.builder().scope("orders-etcd-eu").build();
        return guard;
    }

    private static void update(Connection connection, String sku, int reserved) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE stock SET qty = qty - ? WHERE sku = ?")) {
            update.setInt(1, reserved);
            update.setString(2, sku);
            update.executeUpdate();
        }
    }

    void rowLevel(JdbcTemplate jdbc, String sku, int qty) {
        long token = FencedWrites.token("stock:" + sku); // throws if no fence / lease known lost
        int rows = jdbc.update(
                "UPDATE stock SET qty = ?, fence_token = ? WHERE sku = ? AND " + FencedWrites.condition("fence_token"),
                qty,
                token,
                sku,
                token); // condition(...) is "fence_token <= ?"
        FencedWrites.requireAccepted(rows, "stock:" + sku); // 0 rows -> FencingTokenRejectedException
    }
}
