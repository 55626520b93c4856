package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingTokenRejectedException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** A row-fenced update that changes no row is a fencing rejection, reported to the data source's listener. */
class FencedRowUpdateTest {

    @Test
    void aRowFencedUpdateThatChangesNoRowIsRejectedAndReported() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        List<FencingTokenRejectedException> reported = new CopyOnWriteArrayList<>();
        FencedDataSource dataSource = new FencedDataSource(h2, FenceGuard.create(), reported::add);
        try (Connection setup = h2.getConnection();
                Statement statement = setup.createStatement()) {
            statement.execute(FenceDialect.H2.createTableSql("fencelock_fence"));
            statement.execute("CREATE TABLE stock (sku VARCHAR(16) PRIMARY KEY, qty INT, fence_token BIGINT NOT NULL)");
            statement.execute("INSERT INTO stock VALUES ('apple', 5, 9)");
        }
        String update = FencedRowComment.append(
                "UPDATE stock SET qty = ?, fence_token = ? WHERE sku = ? AND fence_token <= ?", "stock", "fence_token");
        try (FencingContext.Scope fence = FencingContext.push(new FencingContext.Fence("stock:apple", 7, null));
                Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement statement = connection.prepareStatement(update)) {
                statement.setInt(1, 4);
                statement.setLong(2, 7);
                statement.setString(3, "apple");
                statement.setLong(4, 7);
                assertThatThrownBy(statement::executeUpdate)
                        .isInstanceOf(FencingTokenRejectedException.class)
                        .hasMessageContaining("stock.fence_token")
                        .hasMessageContaining("stock:apple");
            }
            connection.rollback();
        }
        assertThat(reported)
                .singleElement()
                .satisfies(rejection -> assertThat(rejection.getToken()).isEqualTo(7));
        try (Connection check = h2.getConnection();
                Statement statement = check.createStatement();
                var rows = statement.executeQuery("SELECT qty, fence_token FROM stock")) {
            rows.next();
            assertThat(rows.getInt(1)).isEqualTo(5);
            assertThat(rows.getLong(2)).isEqualTo(9);
        }
    }
}
