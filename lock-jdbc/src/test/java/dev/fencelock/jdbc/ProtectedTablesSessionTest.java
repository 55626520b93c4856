package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.jdbc.ProtectedTablesTest.ProtectedStock;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The fence a client puts in the session counts for its own transaction only: never for the next
 * borrower of a pooled connection, and (where the database can tell) never after the transaction
 * that set it has ended.
 */
class ProtectedTablesSessionTest {

    private static final String RESOURCE = "stock:apple";

    @AfterEach
    void noFenceLeaks() {
        assertThat(FencingContext.all()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aConnectionReturnedToItsPoolMidFenceCarriesNoFenceToTheNextBorrower(TestDatabase database) throws Exception {
        try (ProtectedStock stock = new ProtectedStock(database);
                HikariDataSource pool = onePooledConnection(stock.fixture)) {
            FencedDataSource fenced = new FencedDataSource(pool, stock.guard().build());
            try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null))) {
                Connection connection = fenced.getConnection();
                connection.setAutoCommit(false);
                stock.setQty(connection, 99);
                connection.commit();
                stock.setQty(connection, 98); // a new transaction, its fence in the session
                connection.close(); // back to the pool mid-transaction, the lock still held
            }
            // Another part of the application borrows the one pooled session, without FenceLock.
            try (Connection raw = pool.getConnection()) {
                raw.setAutoCommit(false);
                assertThatThrownBy(() -> stock.setQty(raw, 1))
                        .satisfies(refusal -> assertThat(FenceProtection.kind(FenceProtection.refusal(refusal)))
                                .isEqualTo(FenceProtection.NO_FENCE));
                raw.rollback();
            }
            assertThat(stock.fixture.qty("apple")).isEqualTo(99L);
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"POSTGRESQL", "H2"})
    void aFenceSetInATransactionThatEndedDoesNotCountInTheNext(TestDatabase database) throws SQLException {
        try (ProtectedStock stock = new ProtectedStock(database);
                Connection raw = database.dataSource().getConnection()) {
            raw.setAutoCommit(false);
            FenceDialect dialect = FenceDialect.detect(raw);
            FenceProtection.setSessionFence(
                    raw, dialect, SessionFence.of(List.of(new SessionFence.Row(RESOURCE, 9)), false));
            stock.setQty(raw, 99);
            try (Statement statement = raw.createStatement()) {
                statement.execute("COMMIT"); // a commit no JDBC call announced
            }
            assertThatThrownBy(() -> stock.setQty(raw, 1))
                    .satisfies(refusal -> assertThat(FenceProtection.kind(FenceProtection.refusal(refusal)))
                            .isEqualTo(FenceProtection.NO_FENCE));
            raw.rollback();
            assertThat(stock.fixture.qty("apple")).isEqualTo(99L);
        }
    }

    private static HikariDataSource onePooledConnection(FenceFixture fixture) {
        HikariConfig config = new HikariConfig();
        config.setDataSource(fixture.dataSource);
        config.setMaximumPoolSize(1);
        config.setMinimumIdle(1);
        return new HikariDataSource(config);
    }
}
