package dev.fencelock.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.FencingTokenRejectedException.RefusedBy;
import dev.fencelock.LockException;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * Fenced R2DBC writes on the real PostgreSQL and MariaDB servers: the fence from the Reactor Context
 * (or the thread) is presented in each transaction, a stale token is refused by the fence table or,
 * where the client leaves the check to the database, by the protected table, and a write without a
 * fence never reaches a protected table.
 */
class FencedConnectionFactoryTest {

    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = this.closeables.size() - 1; i >= 0; i--) {
            this.closeables.get(i).close();
        }
        assertThat(FencingContext.all()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(R2dbcDatabase.class)
    void writeUnderTheCurrentTokenCommitsAndAdvancesTheFenceRow(R2dbcDatabase database) {
        R2dbcDatabase.Tables tables = tables(database);
        ConnectionFactory fenced = new FencedConnectionFactory(database.connectionFactory(), tables.guard(true));

        Writes.write(fenced, tables.counterTable, 42)
                .contextWrite(Writes.under(new Fence("order:1", 7, null)))
                .block(R2dbcDatabase.HANG);

        assertThat(tables.counter()).isEqualTo(42);
        assertThat(tables.storedToken("order:1")).isEqualTo(7);
    }

    @ParameterizedTest
    @EnumSource(R2dbcDatabase.class)
    void staleTokenIsRefusedByTheFenceTableAndNothingIsWritten(R2dbcDatabase database) {
        R2dbcDatabase.Tables tables = tables(database);
        List<FencingTokenRejectedException> reported = new ArrayList<>();
        List<Fence> fenceOnReportingThread = new ArrayList<>();
        ConnectionFactory fenced =
                new FencedConnectionFactory(database.connectionFactory(), tables.guard(true), null, rejection -> {
                    reported.add(rejection);
                    FencingContext.forResource(rejection.getResource()).ifPresent(fenceOnReportingThread::add);
                });
        Writes.write(fenced, tables.counterTable, 100)
                .contextWrite(Writes.under(new Fence("order:1", 20, null)))
                .block(R2dbcDatabase.HANG);

        assertThatThrownBy(() -> Writes.write(fenced, tables.counterTable, 1)
                        .contextWrite(Writes.under(new Fence("order:1", 19, null)))
                        .block(R2dbcDatabase.HANG))
                .isInstanceOfSatisfying(FencingTokenRejectedException.class, rejection -> {
                    assertThat(rejection.refusedBy()).isEqualTo(RefusedBy.FENCE_TABLE);
                    assertThat(rejection.getAcceptedToken()).hasValue(20);
                })
                .hasMessageContaining("Fencing token 19 for 'order:1' was refused by fence table")
                .hasMessageContaining("newer lock holder already wrote with token 20");

        assertThat(reported).hasSize(1);
        // Metrics and audits name the lock from the reporting thread's fence, as for a JDBC writer.
        assertThat(fenceOnReportingThread).extracting(Fence::token).containsExactly(19L);
        assertThat(tables.counter()).isEqualTo(100);
        assertThat(tables.storedToken("order:1")).isEqualTo(20);
    }

    @ParameterizedTest
    @EnumSource(R2dbcDatabase.class)
    void staleTokenIsRefusedByTheProtectedTableWhenTheClientLeavesTheCheckToTheDatabase(R2dbcDatabase database) {
        R2dbcDatabase.Tables tables = tables(database);
        ConnectionFactory fenced = new FencedConnectionFactory(database.connectionFactory(), tables.guard(false));
        Writes.write(fenced, tables.counterTable, 100)
                .contextWrite(Writes.under(new Fence("order:1", 20, null)))
                .block(R2dbcDatabase.HANG);
        assertThat(tables.storedToken("order:1"))
                .as("the trigger advanced the fence row")
                .isEqualTo(20);

        assertThatThrownBy(() -> Writes.write(fenced, tables.counterTable, 1)
                        .contextWrite(Writes.under(new Fence("order:1", 19, null)))
                        .block(R2dbcDatabase.HANG))
                .isInstanceOfSatisfying(
                        FencingTokenRejectedException.class,
                        rejection -> assertThat(rejection.refusedBy()).isEqualTo(RefusedBy.PROTECTED_TABLE))
                .hasMessageContaining("Fencing token 19 for 'order:1' was refused by a protected table");

        assertThat(tables.counter()).isEqualTo(100);
    }

    @ParameterizedTest
    @EnumSource(R2dbcDatabase.class)
    void writeWithoutAFenceIsRefusedByTheProtectedTable(R2dbcDatabase database) {
        R2dbcDatabase.Tables tables = tables(database);
        ConnectionFactory fenced = new FencedConnectionFactory(database.connectionFactory(), tables.guard(true));

        assertThatThrownBy(() -> Writes.write(fenced, tables.counterTable, 5).block(R2dbcDatabase.HANG))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("The database refused the write")
                .hasMessageContaining("carries no fence");
        // Neither does the raw driver get past it.
        assertThatThrownBy(() -> Writes.write(database.connectionFactory(), tables.counterTable, 5)
                        .block(R2dbcDatabase.HANG))
                .hasMessageContaining("carries no fence");

        assertThat(tables.counter()).isZero();
    }

    @ParameterizedTest
    @EnumSource(R2dbcDatabase.class)
    void fenceOfTheSubscribingThreadIsUsedWhenTheContextHasNone(R2dbcDatabase database) {
        R2dbcDatabase.Tables tables = tables(database);
        ConnectionFactory fenced = new FencedConnectionFactory(database.connectionFactory(), tables.guard(true));

        try (FencingContext.Scope scope = FencingContext.push(new Fence("order:2", 11, null))) {
            Writes.write(fenced, tables.counterTable, 8).block(R2dbcDatabase.HANG);
        }

        assertThat(tables.counter()).isEqualTo(8);
        assertThat(tables.storedToken("order:2")).isEqualTo(11);
    }

    @ParameterizedTest
    @EnumSource(R2dbcDatabase.class)
    void emptyContextEntryMeansNoFenceEvenWhenTheThreadHasOne(R2dbcDatabase database) {
        R2dbcDatabase.Tables tables = tables(database);
        ConnectionFactory fenced = new FencedConnectionFactory(database.connectionFactory(), tables.guard(true));

        try (FencingContext.Scope scope = FencingContext.push(new Fence("order:3", 11, null))) {
            assertThatThrownBy(() -> Writes.write(fenced, tables.counterTable, 8)
                            .contextWrite(Context.of(FencedConnectionFactory.CONTEXT_KEY, List.of()))
                            .block(R2dbcDatabase.HANG))
                    .hasMessageContaining("carries no fence");
        }
        assertThat(tables.storedToken("order:3")).isNull();
    }

    @ParameterizedTest
    @EnumSource(R2dbcDatabase.class)
    void statementUnderAFenceInAutoCommitModeIsRefusedBeforeItIsSent(R2dbcDatabase database) {
        R2dbcDatabase.Tables tables = tables(database);
        ConnectionFactory fenced = new FencedConnectionFactory(database.connectionFactory(), tables.guard(true));

        Mono<Long> autoCommit = Mono.usingWhen(
                Mono.from(fenced.create()),
                connection -> Flux.from(connection
                                .createStatement("UPDATE " + tables.counterTable + " SET val = 3 WHERE name = 'c'")
                                .execute())
                        .concatMap(result -> result.getRowsUpdated())
                        .next(),
                Connection::close);

        assertThatThrownBy(() -> autoCommit
                        .contextWrite(Writes.under(new Fence("order:4", 3, null)))
                        .block(R2dbcDatabase.HANG))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("Fenced statement outside a transaction on lock 'order:4'");
        assertThat(tables.counter()).isZero();
        assertThat(tables.storedToken("order:4")).isNull();
    }

    @ParameterizedTest
    @EnumSource(R2dbcDatabase.class)
    void sessionFenceDoesNotOutliveTheConnectionInItsSession(R2dbcDatabase database) {
        R2dbcDatabase.Tables tables = tables(database);
        ConnectionFactory fenced = new FencedConnectionFactory(database.connectionFactory(), tables.guard(true));

        // One session: a fenced transaction, then one without a fence, on the same connection.
        Mono<Void> both = Mono.usingWhen(
                Mono.from(fenced.create()),
                connection -> oneWrite(connection, tables, 1)
                        .contextWrite(Writes.under(new Fence("order:5", 4, null)))
                        .then(oneWrite(connection, tables, 2)
                                .contextWrite(Context.of(FencedConnectionFactory.CONTEXT_KEY, List.of()))),
                Connection::close);

        assertThatThrownBy(() -> both.block(R2dbcDatabase.HANG)).hasMessageContaining("carries no fence");
        assertThat(tables.counter()).isEqualTo(1);
    }

    private static Mono<Void> oneWrite(Connection connection, R2dbcDatabase.Tables tables, long value) {
        return Mono.from(connection.beginTransaction())
                .thenMany(Flux.from(connection
                                .createStatement(
                                        "UPDATE " + tables.counterTable + " SET val = " + value + " WHERE name = 'c'")
                                .execute())
                        .concatMap(result -> result.getRowsUpdated()))
                .then(Mono.from(connection.commitTransaction()))
                .onErrorResume(
                        failure -> Mono.from(connection.rollbackTransaction()).then(Mono.error(failure)));
    }

    private R2dbcDatabase.Tables tables(R2dbcDatabase database) {
        R2dbcDatabase.Tables tables = database.new Tables();
        this.closeables.add(tables);
        return tables;
    }
}
