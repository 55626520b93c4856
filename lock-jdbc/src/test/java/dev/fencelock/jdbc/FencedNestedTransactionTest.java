package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A second transaction of the same thread under the same fence, while the first is still open:
 * Spring's {@code REQUIRES_NEW} (an audit row written whatever happens to the outer transaction),
 * or a second fenced data source on the same database. The first transaction holds the fence row's
 * lock, so a second guard on it would wait for a commit that waits for it. The second transaction
 * rides on the first one's lock instead, and presents its fence itself if it commits after the
 * first ended.
 */
class FencedNestedTransactionTest {

    private static final String RESOURCE = "stock:apple";

    @AfterEach
    void noFenceLeaks() {
        assertThat(FencingContext.all()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void anInnerTransactionDoesNotWaitForTheOuterOne(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = seeded(database);
                FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null))) {
            DataSource fenced = fenced(fixture);
            try (Connection outer = transaction(fenced)) {
                fixture.setQty(outer, "apple", 99);
                try (Connection inner = transaction(fenced)) {
                    fixture.setQty(inner, "pear", 4);
                    inner.commit();
                }
                outer.commit();
            }
            assertThat(fixture.qty("apple")).isEqualTo(99L);
            assertThat(fixture.qty("pear")).isEqualTo(4L);
            assertThat(fixture.storedToken(RESOURCE)).isEqualTo(9L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aSecondFencedDataSourceOnTheSameDatabaseDoesNotWaitEither(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = seeded(database);
                FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null))) {
            try (Connection first = transaction(fenced(fixture))) {
                fixture.setQty(first, "apple", 99);
                try (Connection second = transaction(fenced(fixture))) {
                    fixture.setQty(second, "pear", 4);
                    second.commit();
                }
                first.commit();
            }
            assertThat(fixture.qty("pear")).isEqualTo(4L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void anInnerTransactionThatOutlivesTheOuterOnePresentsItsFenceAtCommit(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = seeded(database);
                FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null))) {
            DataSource fenced = fenced(fixture);
            try (Connection outer = transaction(fenced);
                    Connection inner = transaction(fenced)) {
                fixture.setQty(outer, "apple", 99);
                fixture.setQty(inner, "pear", 4);
                outer.commit();
                // The outer lock is gone: a newer holder may now write, and the inner write is stale.
                fixture.newHolderWrites(RESOURCE, 10, "apple", 50);

                assertThatThrownBy(inner::commit).isInstanceOf(FencingTokenRejectedException.class);
                inner.rollback();
            }
            assertThat(fixture.qty("pear")).isEqualTo(5L);
            assertThat(fixture.qty("apple")).isEqualTo(50L);
        }
    }

    private static Connection transaction(DataSource dataSource) throws SQLException {
        Connection connection = dataSource.getConnection();
        connection.setAutoCommit(false);
        return connection;
    }

    private static FenceFixture seeded(TestDatabase database) throws SQLException {
        FenceFixture fixture = new FenceFixture(database);
        try (Connection connection = fixture.dataSource.getConnection()) {
            fixture.insertStock(connection, "apple", 100);
            fixture.insertStock(connection, "pear", 5);
        }
        return fixture;
    }

    private static DataSource fenced(FenceFixture fixture) {
        return new FencedDataSource(fixture.dataSource, fixture.guard);
    }
}
