package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.LockException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Shared locks and semaphore permits hold together, so their tokens are never presented to the
 * fence table (the larger token would refuse the others): under nothing but such locks, reads run
 * unguarded and anything that may write is refused. Next to an exclusive lock, only the
 * exclusive one is presented.
 */
class FencedSharedLockTest {

    @AfterEach
    void noFenceLeaks() {
        assertThat(FencingContext.all()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void readersReadWithoutTouchingTheFenceTableAndDoNotRefuseEachOther(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = seeded(database)) {
            DataSource fenced = new FencedDataSource(fixture.dataSource, fixture.guard);
            StubLease older = new StubLease("stock:apple", 20, false);
            StubLease newer = new StubLease("stock:apple", 22, false);
            try (FencingContext.Scope fence = FencingContext.open(newer.lease());
                    Connection connection = fenced.getConnection()) {
                // Auto-commit is fine for a read: there is no guard to commit with.
                assertThat(qty(connection, fixture)).isEqualTo(100);
            }
            try (FencingContext.Scope fence = FencingContext.open(older.lease());
                    Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                assertThat(qty(connection, fixture)).isEqualTo(100);
                connection.commit();
            }
            assertThat(fixture.fenceRows()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aWriteUnderOnlyASharedLockOrAPermitIsRefusedAndChangesNothing(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = seeded(database)) {
            DataSource fenced = new FencedDataSource(fixture.dataSource, fixture.guard);
            StubLease reader = new StubLease("stock:apple", 20, false);
            try (FencingContext.Scope fence = FencingContext.open(reader.lease());
                    Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                assertThatThrownBy(() -> fixture.setQty(connection, "apple", 1))
                        .isInstanceOf(LockException.class)
                        .hasMessageContaining("stock:apple")
                        .hasMessageContaining("EXCLUSIVE");
                connection.rollback();
            }
            assertThat(fixture.qty("apple")).isEqualTo(100L);
            assertThat(fixture.fenceRows()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void nextToAnExclusiveLockOnlyTheExclusiveOneIsPresented(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = seeded(database)) {
            DataSource fenced = new FencedDataSource(fixture.dataSource, fixture.guard);
            StubLease source = new StubLease("stock:pear", 30, false);
            StubLease target = new StubLease("stock:apple", 31, true);
            try (FencingContext.Scope read = FencingContext.open(source.lease());
                    FencingContext.Scope write = FencingContext.open(target.lease());
                    Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                fixture.setQty(connection, "apple", 90);
                connection.commit();
            }
            assertThat(fixture.qty("apple")).isEqualTo(90L);
            assertThat(fixture.storedToken("stock:apple")).isEqualTo(31L);
            assertThat(fixture.storedToken("stock:pear")).isNull();
        }
    }

    private static FenceFixture seeded(TestDatabase database) throws SQLException {
        FenceFixture fixture = new FenceFixture(database);
        try (Connection connection = fixture.dataSource.getConnection()) {
            fixture.insertStock(connection, "apple", 100);
        }
        return fixture;
    }

    private static int qty(Connection connection, FenceFixture fixture) throws SQLException {
        try (PreparedStatement statement =
                connection.prepareStatement("SELECT qty FROM " + fixture.stockTable + " WHERE sku = ?")) {
            statement.setString(1, "apple");
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }
}
