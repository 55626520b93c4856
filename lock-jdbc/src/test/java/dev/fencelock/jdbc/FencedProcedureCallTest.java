package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.LockException;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A MariaDB procedure may commit and go on writing in a new transaction, inside one {@code CALL}:
 * no statement the guard sees separates its writes, so under a fence a {@code CALL} is refused
 * unless the guard was told procedures may run ({@code allowProcedureCalls}). Here the procedure
 * commits, waits at a gate while a newer holder writes, then writes with the stale holder's
 * authority. PostgreSQL refuses a {@code COMMIT} inside a procedure called in a transaction
 * block, so there a {@code CALL} is an ordinary guarded statement.
 */
class FencedProcedureCallTest {

    private static final String RESOURCE = "stock:apple";

    @AfterEach
    void noFenceLeaks() {
        assertThat(FencingContext.all()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aProcedureThatCommitsCannotWriteAfterANewerHolder(boolean callable) throws Exception {
        TestDatabase database = TestDatabase.MARIADB;
        try (FenceFixture fixture = new FenceFixture(database)) {
            String procedure = "fence_commits_" + fixture.stockTable;
            String gate = "gate_" + fixture.stockTable;
            execute(fixture, "CREATE TABLE " + gate + " (id INT PRIMARY KEY)");
            execute(fixture, "INSERT INTO " + gate + " VALUES (1)");
            execute(
                    fixture,
                    "CREATE PROCEDURE " + procedure + "() BEGIN UPDATE " + fixture.stockTable
                            + " SET qty = 99 WHERE sku = 'apple'; COMMIT; SELECT id INTO @fence_gate FROM " + gate
                            + " WHERE id = 1 FOR UPDATE; UPDATE " + fixture.stockTable
                            + " SET qty = 1 WHERE sku = 'apple'; END");
            try (Connection seed = fixture.dataSource.getConnection()) {
                fixture.insertStock(seed, "apple", 100);
            }
            try (Connection gateKeeper = fixture.dataSource.getConnection()) {
                gateKeeper.setAutoCommit(false);
                try (Statement closeGate = gateKeeper.createStatement()) {
                    closeGate
                            .executeQuery("SELECT id FROM " + gate + " WHERE id = 1 FOR UPDATE")
                            .close();
                }
                CompletableFuture<Void> call =
                        CompletableFuture.runAsync(() -> callUnderFence(fixture, procedure, callable));
                // Either the call was refused, or it committed its first write and waits at the gate.
                Awaitility.await()
                        .atMost(10, TimeUnit.SECONDS)
                        .until(() -> call.isDone() || fixture.qty("apple") == 99);
                if (!call.isDone()) {
                    fixture.newHolderWrites(RESOURCE, 10, "apple", 50);
                }
                gateKeeper.rollback();
                assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
                        .hasRootCauseInstanceOf(LockException.class)
                        .hasMessageContaining("procedure");
            } finally {
                execute(fixture, "DROP PROCEDURE IF EXISTS " + procedure);
                execute(fixture, "DROP TABLE IF EXISTS " + gate);
            }
            assertThat(fixture.qty("apple")).isEqualTo(100L);
        }
    }

    @Test
    void aGuardThatAllowsProcedureCallsRunsThem() throws SQLException {
        TestDatabase database = TestDatabase.MARIADB;
        try (FenceFixture fixture = new FenceFixture(database)) {
            String procedure = "fence_writes_" + fixture.stockTable;
            execute(
                    fixture,
                    "CREATE PROCEDURE " + procedure + "() BEGIN UPDATE " + fixture.stockTable
                            + " SET qty = 7 WHERE sku = 'apple'; END");
            try (Connection seed = fixture.dataSource.getConnection()) {
                fixture.insertStock(seed, "apple", 100);
            }
            FenceGuard allowing = FenceGuard.builder()
                    .table(fixture.fenceTable)
                    .allowProcedureCalls(true)
                    .build();
            try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                    Connection connection = new FencedDataSource(fixture.dataSource, allowing).getConnection();
                    Statement statement = connection.createStatement()) {
                connection.setAutoCommit(false);
                statement.execute("CALL " + procedure + "()");
                connection.commit();
            } finally {
                execute(fixture, "DROP PROCEDURE IF EXISTS " + procedure);
            }
            assertThat(fixture.qty("apple")).isEqualTo(7L);
            assertThat(fixture.storedToken(RESOURCE)).isEqualTo(9L);
        }
    }

    private static void callUnderFence(FenceFixture fixture, String procedure, boolean callable) {
        DataSource fenced = new FencedDataSource(fixture.dataSource, fixture.guard);
        try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null));
                Connection connection = fenced.getConnection()) {
            connection.setAutoCommit(false);
            try {
                if (callable) {
                    try (CallableStatement call = connection.prepareCall("{call " + procedure + "()}")) {
                        call.execute();
                    }
                } else {
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("CALL " + procedure + "()");
                    }
                }
                connection.commit();
            } finally {
                connection.rollback();
            }
        } catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static void execute(FenceFixture fixture, String sql) throws SQLException {
        try (Connection connection = fixture.dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
