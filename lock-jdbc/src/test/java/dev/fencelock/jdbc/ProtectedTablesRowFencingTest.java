package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.jdbc.ProtectedTablesTest.ProtectedStock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Row-level fencing ({@link FencedWrites}, {@link FencedRowComment}) keeps working on a protected table. */
class ProtectedTablesRowFencingTest {

    private static final String RESOURCE = "stock:apple";

    @AfterEach
    void noFenceLeaks() {
        assertThat(FencingContext.all()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aRowFencedUpdateOfAProtectedTableWritesItsTokenAndRefusesAnOlderOne(TestDatabase database)
            throws SQLException {
        try (ProtectedStock stock = new ProtectedStock(database)) {
            FencedDataSource fenced =
                    new FencedDataSource(stock.fixture.dataSource, stock.guard().build());
            try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                    Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                assertThat(update(connection, stock, 50)).isEqualTo(1);
                connection.commit();
            }
            // An older holder is refused, its row untouched.
            try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 5, null));
                    Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                assertThatThrownBy(() -> update(connection, stock, 1))
                        .isInstanceOf(FencingTokenRejectedException.class);
                connection.rollback();
            }
            assertThat(stock.fixture.qty("apple")).isEqualTo(50L);
        }
    }

    private static int update(Connection connection, ProtectedStock stock, int qty) throws SQLException {
        long token = FencedWrites.token(RESOURCE);
        try (PreparedStatement statement = connection.prepareStatement("UPDATE " + stock.fixture.stockTable
                + " SET qty = ?, fence_token = ? WHERE sku = 'apple' AND " + FencedWrites.condition("fence_token"))) {
            statement.setInt(1, qty);
            statement.setLong(2, token);
            statement.setLong(3, token);
            return (int) FencedWrites.requireAccepted(statement.executeUpdate(), RESOURCE);
        }
    }
}
