package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class FencedWritesTest {

    @AfterEach
    void noFenceLeaks() {
        assertThat(FencingContext.all()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void rowCarryingANewerTokenRefusesTheStaleHoldersUpdate(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database);
                Connection connection = fixture.dataSource.getConnection()) {
            fixture.insertStock(connection, "apple", 100);

            try (FencingContext.Scope newer = FencingContext.push(new Fence("stock:apple", 9, null))) {
                assertThat(FencedWrites.requireAccepted(update(connection, fixture, 90)))
                        .isEqualTo(1);
                assertThat(FencedWrites.requireAccepted(update(connection, fixture, 80)))
                        .isEqualTo(1); // equal token
            }
            try (FencingContext.Scope stale = FencingContext.push(new Fence("stock:apple", 5, null))) {
                long rows = update(connection, fixture, 1);
                assertThatThrownBy(() -> FencedWrites.requireAccepted(rows, "stock:apple"))
                        .isInstanceOf(FencingTokenRejectedException.class)
                        .hasMessageContaining("'stock:apple'")
                        .hasMessageContaining("token 5")
                        .hasMessageContaining("changed no row");
            }

            assertThat(fixture.qty("apple")).isEqualTo(80L);
        }
    }

    @Test
    void conditionComparesTheTokenColumn() {
        assertThat(FencedWrites.condition("fence_token")).isEqualTo("fence_token <= ?");
        assertThat(FencedWrites.condition("s.fence_token")).isEqualTo("s.fence_token <= ?");
        assertThatThrownBy(() -> FencedWrites.condition("fence_token OR 1=1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a plain column name");
    }

    @Test
    void tokenComesFromTheFencingContext() {
        try (FencingContext.Scope outer = FencingContext.push(new Fence("warehouse:1", 4, null));
                FencingContext.Scope inner = FencingContext.push(new Fence("stock:apple", 9, null))) {
            assertThat(FencedWrites.token()).isEqualTo(9);
            assertThat(FencedWrites.token("warehouse:1")).isEqualTo(4);
        }
    }

    @Test
    void aSharedLockOrAPermitInsideAnExclusiveLockDoesNotLendItsTokenToWrites() {
        StubLease order = new StubLease("order:1", 100);
        StubLease catalog = new StubLease("catalog", 250, false);
        try (FencingContext.Scope outer = FencingContext.open(order.lease());
                FencingContext.Scope inner = FencingContext.open(catalog.lease())) {
            // A reader's newer token would pass a row the exclusive holder's successor fenced.
            assertThat(FencedWrites.token()).isEqualTo(100);
            assertThatThrownBy(() -> FencedWrites.token("catalog"))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("'catalog'")
                    .hasMessageContaining("cannot fence a write");
            assertThatThrownBy(() -> FencedWrites.requireAccepted(0))
                    .isInstanceOf(FencingTokenRejectedException.class)
                    .hasMessageContaining("order:1");
        }
    }

    @Test
    void onlySharedLocksGiveNoTokenForWrites() {
        StubLease catalog = new StubLease("catalog", 250, false);
        try (FencingContext.Scope scope = FencingContext.open(catalog.lease())) {
            assertThatThrownBy(FencedWrites::token)
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("cannot fence a write");
        }
    }

    @Test
    void tokenWithoutAFenceIsAnError() {
        assertThatThrownBy(FencedWrites::token)
                .isInstanceOf(LockException.class)
                .hasMessageContaining("holds no lock");
        assertThatThrownBy(() -> FencedWrites.token("stock:apple"))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("'stock:apple'");
    }

    @Test
    void tokenOfALostLockIsRefusedLocally() {
        StubLease lease = new StubLease("stock:apple", 9);
        lease.lose();
        try (FencingContext.Scope scope = FencingContext.open(lease.lease())) {
            assertThatThrownBy(FencedWrites::token)
                    .isInstanceOf(FencingTokenRejectedException.class)
                    .hasMessageContaining("no longer held");
        }
    }

    @Test
    void tokenOfALockFromAStoreWithoutFencingTokensIsRefused() {
        StubLease lease = new StubLease("stock:apple", 9).withoutFencing();
        try (FencingContext.Scope scope = FencingContext.open(lease.lease())) {
            assertThatThrownBy(FencedWrites::token)
                    .isInstanceOf(FencingTokenRejectedException.class)
                    .hasMessageContaining("not a fencing token");
            assertThatThrownBy(() -> FencedWrites.token("stock:apple"))
                    .isInstanceOf(FencingTokenRejectedException.class)
                    .hasMessageContaining("not a fencing token");
        }
    }

    private static long update(Connection connection, FenceFixture fixture, int qty) throws SQLException {
        long token = FencedWrites.token();
        try (PreparedStatement statement = connection.prepareStatement("UPDATE " + fixture.stockTable
                + " SET qty = ?, fence_token = ? WHERE sku = ? AND " + FencedWrites.condition("fence_token"))) {
            statement.setInt(1, qty);
            statement.setLong(2, token);
            statement.setString(3, "apple");
            statement.setLong(4, token);
            return statement.executeUpdate();
        }
    }
}
