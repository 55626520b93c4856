package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.LockException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Texts that the servers run as "write, commit, write", where a careless reading sees one
 * statement: a line comment that ends at a carriage return, or {@code --} that MariaDB does not
 * read as a comment without white space after it. Under a fence, such a text must be refused before
 * it runs: its last write would land in a transaction the guard never saw.
 */
class FencedLexerDisagreementTest {

    private static final String RESOURCE = "stock:apple";

    @AfterEach
    void noFenceLeaks() {
        assertThat(FencingContext.all()).isEmpty();
    }

    static Stream<Arguments> writeCommitWrite() throws SQLException {
        String write1 = "UPDATE %1$s SET qty = 1 WHERE sku = 'apple'";
        String write2 = "UPDATE %1$s SET qty = 2 WHERE sku = 'apple'";
        return Stream.of(
                Arguments.of(
                        TestDatabase.POSTGRESQL,
                        TestDatabase.POSTGRESQL.dataSource(),
                        write1 + " -- note\r; COMMIT; " + write2),
                Arguments.of(TestDatabase.H2, TestDatabase.H2.dataSource(), write1 + " -- note\r; COMMIT; " + write2),
                Arguments.of(TestDatabase.H2, TestDatabase.H2.dataSource(), write1 + " // note\r; COMMIT; " + write2),
                Arguments.of(
                        TestDatabase.MARIADB,
                        TestDatabase.MARIADB.multiQueryDataSource(),
                        "UPDATE %1$s SET qty = 3 --1; COMMIT; " + write2 + "\n"));
    }

    @ParameterizedTest(name = "{0}: {2}")
    @MethodSource("writeCommitWrite")
    void aTextTheServerSplitsAroundACommitIsRefused(TestDatabase database, DataSource dataSource, String text)
            throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            try (Connection connection = fixture.dataSource.getConnection()) {
                fixture.insertStock(connection, "apple", 100);
            }
            DataSource fenced = new FencedDataSource(dataSource, fixture.guard);
            try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                    Connection connection = fenced.getConnection();
                    Statement statement = connection.createStatement()) {
                connection.setAutoCommit(false);
                String sql = String.format(text, fixture.stockTable);
                assertThatThrownBy(() -> statement.execute(sql)).isInstanceOf(LockException.class);
                connection.rollback();
            }
            assertThat(fixture.qty("apple")).isEqualTo(100L);
        }
    }
}
