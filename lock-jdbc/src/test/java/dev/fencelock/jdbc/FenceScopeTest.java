package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.InvalidLockKeyException;
import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Fence rows of different scopes (two etcd clusters, or two namespaces, sharing one database)
 * never meet: a token is only ever compared with tokens of its own scope. Rows written before a
 * scope was configured keep refusing stale holders while the scope is rolled out.
 */
class FenceScopeTest {

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void tokensOfAnotherScopeAreNeverCompared(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            FenceGuard clusterA = scoped(fixture, "cluster-a");
            FenceGuard clusterB = scoped(fixture, "cluster-b");

            present(fixture, clusterA, "order:1", 1_000_000);
            present(fixture, clusterB, "order:1", 5);

            assertThatExceptionOfType(FencingTokenRejectedException.class)
                    .isThrownBy(() -> present(fixture, clusterA, "order:1", 999_999))
                    .withMessageContaining("token 1000000");
            assertThatExceptionOfType(FencingTokenRejectedException.class)
                    .isThrownBy(() -> present(fixture, clusterB, "order:1", 4))
                    .withMessageContaining("token 5");
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void scopedRowsStayOutOfTheUnscopedOnes(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            present(fixture, scoped(fixture, "cluster-a"), "order:1", 1_000_000);

            assertThatCode(() -> present(fixture, fixture.guard, "order:1", 5)).doesNotThrowAnyException();
            assertThat(fixture.storedToken("order:1")).isEqualTo(5L);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void duringTheRolloutAnUnscopedRowStillRefusesAStaleHolder(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            // An instance not yet given the scope hands the lock to a new holder, who writes with 100.
            present(fixture, fixture.guard, "order:1", 100);
            FenceGuard rollingOut = FenceGuard.builder()
                    .table(fixture.fenceTable)
                    .scope("cluster-a")
                    .scopeRollout(true)
                    .build();

            assertThatExceptionOfType(FencingTokenRejectedException.class)
                    .isThrownBy(() -> present(fixture, rollingOut, "order:1", 90))
                    .withMessageContaining("token 100");
            // Without the rollout the scope starts afresh, which is why the rollout exists.
            assertThatCode(() -> present(fixture, scoped(fixture, "cluster-a"), "order:1", 90))
                    .doesNotThrowAnyException();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void duringTheRolloutAScopedHolderAdvancesTheUnscopedRowForInstancesWithoutTheScope(TestDatabase database)
            throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            FenceGuard rollingOut = FenceGuard.builder()
                    .table(fixture.fenceTable)
                    .scope("cluster-a")
                    .scopeRollout(true)
                    .build();
            present(fixture, rollingOut, "order:1", 100);

            assertThat(fixture.storedToken("order:1")).isEqualTo(100L);
            assertThatExceptionOfType(FencingTokenRejectedException.class)
                    .isThrownBy(() -> present(fixture, fixture.guard, "order:1", 90));
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void highestTokenIsReadForTheGuardsOwnScopeOnly(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            // '_' and '%' are LIKE wildcards: a scope named with them must not match its neighbours.
            FenceGuard clusterA = scoped(fixture, "cluster_a%");
            FenceGuard lookalike = scoped(fixture, "clusterXa%more");
            present(fixture, clusterA, "order:1", 10);
            present(fixture, clusterA, "order:2", 20);
            present(fixture, lookalike, "order:1", 5_000);
            present(fixture, fixture.guard, "order:1", 700);

            try (Connection connection = fixture.dataSource.getConnection()) {
                assertThat(clusterA.highestToken(connection)).isEqualTo(20L);
                assertThat(lookalike.highestToken(connection)).isEqualTo(5_000L);
                assertThat(fixture.guard.highestToken(connection)).isEqualTo(700L);
                assertThat(scoped(fixture, "cluster-b").highestToken(connection))
                        .isZero();
            }
        }
    }

    @Test
    void scopeMustBePrintable() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> FenceGuard.builder().scope("").build())
                .withMessageContaining("scope");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> FenceGuard.builder().scope("a\u001Fb").build())
                .withMessageContaining("scope");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> FenceGuard.builder().scopeRollout(true).build())
                .withMessageContaining("scope");
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void theScopeCountsTowardsTheResourceColumn(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            FenceGuard guard = scoped(fixture, "0123456789");
            String fits = "r".repeat(255 - 11);

            assertThatCode(() -> present(fixture, guard, fits, 1)).doesNotThrowAnyException();
            assertThatExceptionOfType(InvalidLockKeyException.class)
                    .isThrownBy(() -> present(fixture, guard, fits + "r", 1))
                    .withMessageContaining("scope '0123456789'");
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aResourceCannotPoseAsAScopedRow(TestDatabase database) throws SQLException {
        try (FenceFixture fixture = new FenceFixture(database)) {
            assertThatExceptionOfType(InvalidLockKeyException.class)
                    .isThrownBy(() -> present(fixture, fixture.guard, "cluster-a\u001Forder:1", 1));
        }
    }

    private static FenceGuard scoped(FenceFixture fixture, String scope) {
        return FenceGuard.builder().table(fixture.fenceTable).scope(scope).build();
    }

    private static void present(FenceFixture fixture, FenceGuard guard, String resource, long token)
            throws SQLException {
        try (Connection connection = fixture.transaction()) {
            try {
                guard.check(connection, new Fence(resource, token, null));
                connection.commit();
            } finally {
                if (!connection.getAutoCommit()) {
                    connection.rollback();
                }
            }
        }
    }
}
