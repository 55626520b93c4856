package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import java.nio.charset.StandardCharsets;
import java.sql.Blob;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's large objects live on the server: a {@link Blob} read from an {@code oid} column
 * writes to the server as its setters run. That is not a statement the guard sees, so the blob must
 * run the guard first, also in a transaction after the one in which it was read.
 */
class FencedLargeObjectTest {

    private static final String RESOURCE = "doc:1";

    @AfterEach
    void noFenceLeaks() {
        assertThat(FencingContext.all()).isEmpty();
    }

    @Test
    void aBlobWrittenAfterItsTransactionCommittedIsGuardedAgain() throws SQLException {
        try (FenceFixture fixture = new FenceFixture(TestDatabase.POSTGRESQL);
                Documents documents = new Documents(fixture)) {
            DataSource fenced = new FencedDataSource(fixture.dataSource, fixture.guard);
            try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                    Connection connection = fenced.getConnection()) {
                connection.setAutoCommit(false);
                Blob blob;
                try (Statement statement = connection.createStatement();
                        ResultSet rows = statement.executeQuery("SELECT body FROM " + documents.table)) {
                    assertThat(rows.next()).isTrue();
                    blob = rows.getBlob(1); // the driver opens the large object when it is first used
                }
                connection.commit();
                fixture.newHolderWrites(RESOURCE, 10, "apple", 50);

                assertThatThrownBy(() -> {
                            blob.setBytes(1, "v9".getBytes(StandardCharsets.UTF_8));
                            connection.commit();
                        })
                        .isInstanceOf(FencingTokenRejectedException.class);
                connection.rollback();
            }
            assertThat(documents.body()).isEqualTo("v1");
        }
    }

    /** A table of one document whose body is a large object holding "v1". */
    private static final class Documents implements AutoCloseable {

        final String table;

        private final FenceFixture fixture;

        Documents(FenceFixture fixture) throws SQLException {
            this.fixture = fixture;
            this.table = "doc_" + fixture.stockTable;
            try (Connection connection = fixture.dataSource.getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE " + this.table + " (id INT PRIMARY KEY, body OID)");
                statement.execute("INSERT INTO " + this.table + " VALUES (1, lo_from_bytea(0, 'v1'::bytea))");
            }
        }

        String body() throws SQLException {
            try (Connection connection = this.fixture.dataSource.getConnection()) {
                connection.setAutoCommit(false);
                try (Statement statement = connection.createStatement();
                        ResultSet rows = statement.executeQuery("SELECT body FROM " + this.table)) {
                    rows.next();
                    Blob blob = rows.getBlob(1);
                    String body = new String(blob.getBytes(1, (int) blob.length()), StandardCharsets.UTF_8);
                    connection.rollback();
                    return body;
                }
            }
        }

        @Override
        public void close() throws SQLException {
            try (Connection connection = this.fixture.dataSource.getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("SELECT lo_unlink(body) FROM " + this.table);
                statement.execute("DROP TABLE " + this.table);
            }
        }
    }
}
