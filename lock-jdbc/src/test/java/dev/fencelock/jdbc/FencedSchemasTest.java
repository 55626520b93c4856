package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Two fenced data sources on one PostgreSQL database whose connections have different current
 * schemas: an unqualified fence table names a different table on each. A nested transaction on
 * the second must present its fence to its own table, never ride on the row lock the first holds
 * in the other schema.
 */
class FencedSchemasTest {

    private static final String RESOURCE = "stock:apple";

    @AfterEach
    void noFenceLeaks() {
        assertThat(FencingContext.all()).isEmpty();
    }

    @Test
    void aNestedTransactionInAnotherSchemaPresentsItsOwnFence() throws SQLException {
        try (FenceFixture fixture = new FenceFixture(TestDatabase.POSTGRESQL)) {
            String first = "s1_" + fixture.fenceTable;
            String second = "s2_" + fixture.fenceTable;
            String stock = "public." + fixture.stockTable;
            try (Connection setup = fixture.dataSource.getConnection();
                    Statement statement = setup.createStatement()) {
                statement.execute("CREATE SCHEMA " + first);
                statement.execute("CREATE SCHEMA " + second);
                statement.execute("INSERT INTO " + stock + " (sku, qty) VALUES ('apple', 100), ('pear', 5)");
            }
            try {
                DataSource inFirst = inSchema(first);
                DataSource inSecond = inSchema(second);
                for (DataSource dataSource : new DataSource[] {inFirst, inSecond}) {
                    try (Connection connection = dataSource.getConnection()) {
                        fixture.guard.createTableIfMissing(connection);
                    }
                }
                // A newer holder wrote through the second schema's fence table.
                try (Connection connection = inSecond.getConnection()) {
                    connection.setAutoCommit(false);
                    fixture.guard.check(connection, new Fence(RESOURCE, 10, null));
                    connection.commit();
                }
                try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                        Connection outer = new FencedDataSource(inFirst, fixture.guard).getConnection();
                        Connection inner = new FencedDataSource(inSecond, fixture.guard).getConnection()) {
                    outer.setAutoCommit(false);
                    inner.setAutoCommit(false);
                    update(outer, stock, "apple", 99); // accepted by the first schema's table
                    assertThatThrownBy(() -> {
                                update(inner, stock, "pear", 4);
                                inner.commit();
                            })
                            .isInstanceOf(FencingTokenRejectedException.class);
                    inner.rollback();
                    outer.rollback();
                }
                assertThat(fixture.qty("pear")).isEqualTo(5L);
            } finally {
                try (Connection setup = fixture.dataSource.getConnection();
                        Statement statement = setup.createStatement()) {
                    statement.execute("DROP SCHEMA " + first + " CASCADE");
                    statement.execute("DROP SCHEMA " + second + " CASCADE");
                }
            }
        }
    }

    private static DataSource inSchema(String schema) throws SQLException {
        PGSimpleDataSource dataSource = (PGSimpleDataSource) TestDatabase.POSTGRESQL.create();
        dataSource.setCurrentSchema(schema);
        return dataSource;
    }

    private static void update(Connection connection, String table, String sku, int qty) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.executeUpdate("UPDATE " + table + " SET qty = " + qty + " WHERE sku = '" + sku + "'");
        }
    }
}
