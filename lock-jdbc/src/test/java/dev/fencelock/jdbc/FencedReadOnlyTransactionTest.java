package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A read-only transaction under a lock ({@code @Transactional(readOnly = true)} sets the
 * connection read-only) must work: where the database enforces read-only, the guard's upsert would
 * fail, so the guard reads the fence instead. Where it does not enforce it, read-only must not
 * become a way around the guard: a write there is fenced as usual.
 */
class FencedReadOnlyTransactionTest {

    private static final String RESOURCE = "stock:apple";

    @AfterEach
    void noFenceLeaks() {
        assertThat(FencingContext.all()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aReadOnlyTransactionOfTheCurrentHolderReads(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = seeded(database);
                FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                Connection connection = fenced(fixture).getConnection()) {
            connection.setReadOnly(true);
            connection.setAutoCommit(false);
            assertThat(qty(connection, fixture)).isEqualTo(100);
            connection.commit();
            connection.setReadOnly(false);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aReadOnlyTransactionOfAStaleHolderIsRefused(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = seeded(database)) {
            fixture.newHolderWrites(RESOURCE, 10, "apple", 50);
            try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                    Connection connection = fenced(fixture).getConnection()) {
                connection.setReadOnly(true);
                connection.setAutoCommit(false);
                assertThatThrownBy(() -> qty(connection, fixture)).isInstanceOf(FencingTokenRejectedException.class);
                connection.rollback();
                connection.setReadOnly(false);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aWriteInAReadOnlyTransactionOfAStaleHolderNeverLands(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = seeded(database)) {
            fixture.newHolderWrites(RESOURCE, 10, "apple", 50);
            try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                    Connection connection = fenced(fixture).getConnection()) {
                connection.setReadOnly(true);
                connection.setAutoCommit(false);
                // Refused by the fence, or by the database's own read-only rule: never written.
                assertThatThrownBy(() -> {
                            fixture.setQty(connection, "apple", 1);
                            connection.commit();
                        })
                        .isInstanceOfAny(FencingTokenRejectedException.class, SQLException.class);
                connection.rollback();
                connection.setReadOnly(false);
            }
            assertThat(fixture.qty("apple")).isEqualTo(50L);
        }
    }

    private static int qty(Connection connection, FenceFixture fixture) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows =
                        statement.executeQuery("SELECT qty FROM " + fixture.stockTable + " WHERE sku = 'apple'")) {
            rows.next();
            return rows.getInt(1);
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
}
