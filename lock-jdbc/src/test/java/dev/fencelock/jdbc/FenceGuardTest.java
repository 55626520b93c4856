package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.InvalidLockKeyException;
import dev.fencelock.LockException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.mariadb.jdbc.MariaDbDataSource;

class FenceGuardTest {

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void firstTokenOfResourceIsInserted(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            presentAndCommit(fixture, new Fence("order:1", 7, null));

            assertThat(fixture.storedToken("order:1")).isEqualTo(7L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void higherTokenIsAccepted(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            presentAndCommit(fixture, new Fence("order:1", 7, null));
            presentAndCommit(fixture, new Fence("order:1", 9, null));

            assertThat(fixture.storedToken("order:1")).isEqualTo(9L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void equalTokenIsAcceptedAgainAndAgain(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            presentAndCommit(fixture, new Fence("order:1", 7, null));
            try (Connection connection = fixture.transaction()) {
                // Twice in one transaction and once more after: one holder writes many times.
                fixture.guard.check(connection, new Fence("order:1", 7, null));
                fixture.guard.check(connection, new Fence("order:1", 7, null));
                connection.commit();
            }
            presentAndCommit(fixture, new Fence("order:1", 7, null));

            assertThat(fixture.storedToken("order:1")).isEqualTo(7L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void lowerTokenIsRejectedAndTheHigherOneKept(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            presentAndCommit(fixture, new Fence("order:1", 9, null));

            try (Connection connection = fixture.transaction()) {
                FencingTokenRejectedException rejected = catchThrowableOfType(
                        FencingTokenRejectedException.class,
                        () -> fixture.guard.check(connection, new Fence("order:1", 5, null)));
                connection.rollback();

                assertThat(rejected.getResource()).isEqualTo("order:1");
                assertThat(rejected.getToken()).isEqualTo(5);
                assertThat(rejected.getAcceptedToken()).hasValue(9);
                assertThat(rejected.getMessage())
                        .contains("'order:1'", "token 5", "token 9", fixture.fenceTable, "roll back");
            }
            assertThat(fixture.storedToken("order:1")).isEqualTo(9L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void rejectedGuardTakesTheBusinessWriteDownWithTheTransaction(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            presentAndCommit(fixture, new Fence("stock:apple", 9, null));

            try (Connection connection = fixture.transaction()) {
                fixture.insertStock(connection, "apple", 100);
                assertThatThrownBy(() -> fixture.guard.check(connection, new Fence("stock:apple", 5, null)))
                        .isInstanceOf(FencingTokenRejectedException.class);
                connection.rollback();
            }

            assertThat(fixture.qty("apple")).isNull();
            assertThat(fixture.storedToken("stock:apple")).isEqualTo(9L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void resourcesAreFencedSeparatelyAndCaseSensitively(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            presentAndCommit(fixture, new Fence("Order:1", 9, null));
            presentAndCommit(fixture, new Fence("order:1", 5, null));

            assertThat(fixture.storedToken("Order:1")).isEqualTo(9L);
            assertThat(fixture.storedToken("order:1")).isEqualTo(5L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void resourceOfExactlyTheColumnLengthIsStoredWhole(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            String longest = "\uD83D\uDD12".repeat(FenceTable.DEFAULT_RESOURCE_LENGTH);
            if (database == TestDatabase.H2) {
                // H2 counts UTF-16 units: refused up front instead of failing (or truncating) in SQL.
                Fence tooLongForH2 = new Fence(longest, 3, null);
                assertThatThrownBy(() -> presentAndCommit(fixture, tooLongForH2))
                        .isInstanceOf(InvalidLockKeyException.class)
                        .hasMessageContaining("510 characters");
                longest = "\uD83D\uDD12".repeat(FenceTable.DEFAULT_RESOURCE_LENGTH / 2) + "x";
            }

            presentAndCommit(fixture, new Fence(longest, 3, null));

            assertThat(fixture.storedToken(longest)).isEqualTo(3L);
            assertThat(fixture.storedToken(longest.substring(0, longest.length() - 2)))
                    .isNull();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void resourceLongerThanTheColumnIsRefusedBeforeAnySql(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database);
                Connection connection = fixture.transaction()) {
            String tooLong = "r".repeat(FenceTable.DEFAULT_RESOURCE_LENGTH + 1);

            assertThatThrownBy(() -> fixture.guard.check(connection, new Fence(tooLong, 3, null)))
                    .isInstanceOf(InvalidLockKeyException.class)
                    .hasMessageContaining("256 characters")
                    .hasMessageContaining(fixture.fenceTable + "' (255)");
            assertThatThrownBy(() -> fixture.guard.check(untouchableConnection(), new Fence(tooLong, 3, null)))
                    .isInstanceOf(InvalidLockKeyException.class);
            connection.rollback();
            assertThat(fixture.fenceRows()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void missingTableIsNamedWithTheDdlToCreateIt(TestDatabase database) throws SQLException {
        FenceGuard guard = FenceGuard.builder().table("fence_never_created").build();
        try (Connection connection = database.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            FenceDialect dialect = FenceDialect.detect(connection);

            assertThatThrownBy(() -> guard.check(connection, new Fence("order:1", 1, null)))
                    .isExactlyInstanceOf(LockException.class)
                    .hasMessageContaining("'fence_never_created' does not exist")
                    .hasMessageContaining(dialect.createTableSql("fence_never_created"))
                    .hasMessageContaining("initialize-schema")
                    .hasCauseInstanceOf(SQLException.class);
            connection.rollback();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void schemaQualifiedTableWorks(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            FenceGuard qualified = FenceGuard.builder()
                    .table(database.schema() + "." + fixture.fenceTable)
                    .build();
            try (Connection connection = fixture.transaction()) {
                qualified.check(connection, new Fence("order:1", 4, null));
                connection.commit();
            }

            assertThat(fixture.storedToken("order:1")).isEqualTo(4L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void dialectIsDetectedFromTheConnection(TestDatabase database) throws SQLException {
        try (Connection connection = database.dataSource().getConnection()) {
            assertThat(FenceDialect.detect(connection)).hasToString(database.name());
        }
    }

    @Test
    void mariaDbVerdictDoesNotDependOnTheDriversRowCountMode() throws SQLException {
        // Default Connector/J 3 reports found rows (a refused row counts 1); useAffectedRows=true
        // reports 0 for an accepted row that did not change. The guard must not care.
        try (FenceFixture fixture = new FenceFixture(TestDatabase.MARIADB)) {
            DataSource affectedRows = new MariaDbDataSource(TestDatabase.MARIADB.url() + "?useAffectedRows=true");
            try (Connection connection = affectedRows.getConnection("fencelock", "fencelock")) {
                connection.setAutoCommit(false);
                fixture.guard.check(connection, new Fence("order:1", 7, null));
                fixture.guard.check(connection, new Fence("order:1", 7, null));
                assertThatThrownBy(() -> fixture.guard.check(connection, new Fence("order:1", 6, null)))
                        .isInstanceOf(FencingTokenRejectedException.class)
                        .hasMessageContaining("token 7");
                connection.commit();
            }

            assertThat(fixture.storedToken("order:1")).isEqualTo(7L);
        }
    }

    @Test
    void lostLeaseIsRefusedLocallyWithoutTouchingTheDatabase() {
        StubLease lease = new StubLease("order:1", 12);
        lease.lose();

        FencingTokenRejectedException rejected = catchThrowableOfType(
                FencingTokenRejectedException.class,
                () -> FenceGuard.create().check(untouchableConnection(), new Fence("order:1", 12, lease.lease())));

        assertThat(rejected.getResource()).isEqualTo("order:1");
        assertThat(rejected.getToken()).isEqualTo(12);
        assertThat(rejected.getMessage()).contains("no longer held", "before it reached the database");
    }

    @Test
    void aFenceFromAStoreWithoutFencingTokensIsRefusedWithoutTouchingTheDatabase() {
        StubLease lease = new StubLease("order:1", 12).withoutFencing();

        FencingTokenRejectedException rejected = catchThrowableOfType(
                FencingTokenRejectedException.class,
                () -> FenceGuard.create()
                        .check(
                                untouchableConnection(),
                                FencingContext.open(lease.lease()).fence()));
        FencingContext.setAll(java.util.List.of());

        assertThat(rejected.getResource()).isEqualTo("order:1");
        assertThat(rejected.refusedBy()).isEqualTo(FencingTokenRejectedException.RefusedBy.CLIENT);
        assertThat(rejected.getMessage())
                .contains("'order:1'", "not a fencing token", "failover", "fencelock.backend=etcd")
                .contains("before it reached the database");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "fence;drop table x", "fence table", "1fence", "a.b.c", "\"fence\"", "fence-x", "s."})
    void tableNameMustBeAPlainIdentifier(String name) {
        assertThatThrownBy(() -> FenceGuard.builder().table(name).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a plain identifier");
    }

    @ParameterizedTest
    @ValueSource(strings = {"fencelock_fence", "app.fencelock_fence", "_f1", "F"})
    void plainIdentifiersAreAcceptedAsTableNames(String name) {
        assertThatCode(() -> FenceGuard.builder().table(name).build()).doesNotThrowAnyException();
    }

    @Test
    void resourceColumnLengthIsBounded() {
        assertThatThrownBy(() -> FenceGuard.builder().resourceLength(0).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FenceGuard.builder().resourceLength(769).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("768");
    }

    @Test
    void dialectFollowsTheProductName() {
        assertThat(FenceDialect.fromProductName("PostgreSQL")).isEqualTo(FenceDialect.POSTGRESQL);
        assertThat(FenceDialect.fromProductName("MariaDB")).isEqualTo(FenceDialect.MARIADB);
        assertThat(FenceDialect.fromProductName("MySQL")).isEqualTo(FenceDialect.MARIADB);
        assertThat(FenceDialect.fromProductName("H2")).isEqualTo(FenceDialect.H2);
        assertThatThrownBy(() -> FenceDialect.fromProductName("Oracle"))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("'Oracle'")
                .hasMessageContaining("dialect(...)");
    }

    @Test
    void ddlNamesTheTableAndColumnLength() {
        FenceTable table = new FenceTable("app.fence", 100);
        for (FenceDialect dialect : FenceDialect.values()) {
            assertThat(dialect.createTableSql(table))
                    .startsWith("CREATE TABLE IF NOT EXISTS app.fence (")
                    .contains("resource VARCHAR(100)", "PRIMARY KEY", "token BIGINT NOT NULL", "updated_at");
        }
        assertThat(FenceDialect.MARIADB.createTableSql(table)).contains("utf8mb4_bin");
    }

    private static void presentAndCommit(FenceFixture fixture, Fence fence) throws SQLException {
        try (Connection connection = fixture.transaction()) {
            fixture.guard.check(connection, fence);
            connection.commit();
        }
    }

    /** A connection that fails the test if the guard touches it at all. */
    static Connection untouchableConnection() {
        return (Connection) Proxy.newProxyInstance(
                FenceGuardTest.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    throw new AssertionError("the guard touched the database: " + method.getName());
                });
    }
}
