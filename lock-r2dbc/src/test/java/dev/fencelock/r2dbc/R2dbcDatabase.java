package dev.fencelock.r2dbc;

import dev.fencelock.jdbc.FenceDialect;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.jdbc.FenceProtection;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The local PostgreSQL and MariaDB servers of scripts/start-databases.sh, reached through their R2DBC
 * drivers. An unreachable server fails the test; it is never skipped.
 */
enum R2dbcDatabase {
    POSTGRESQL(FenceDialect.POSTGRESQL, "FENCELOCK_PG_R2DBC_URL", "r2dbc:postgresql://127.0.0.1:5432/fencelock"),
    MARIADB(FenceDialect.MARIADB, "FENCELOCK_MARIADB_R2DBC_URL", "r2dbc:mariadb://127.0.0.1:3306/fencelock");

    /** A bound for a hung test, not a measure of speed. */
    static final Duration HANG = Duration.ofSeconds(30);

    final FenceDialect dialect;

    private final String url;

    R2dbcDatabase(FenceDialect dialect, String variable, String fallback) {
        this.dialect = dialect;
        String value = System.getenv(variable);
        this.url = (value != null && !value.isBlank()) ? value : fallback;
    }

    ConnectionFactory connectionFactory() {
        String credentials = this.url.replaceFirst("://", "://fencelock:fencelock@");
        return ConnectionFactories.get(credentials);
    }

    /** Runs {@code sql} statements one by one on a fresh raw connection, outside any fence. */
    void run(List<String> sql) {
        Mono.usingWhen(
                        Mono.from(connectionFactory().create()),
                        connection -> Flux.fromIterable(sql)
                                .concatMap(text -> Flux.from(
                                                connection.createStatement(text).execute())
                                        .concatMap(result -> result.getRowsUpdated()))
                                .then(),
                        Connection::close)
                .block(HANG);
    }

    /** One value read on a fresh raw connection, or {@code null}. */
    Long readLong(String sql) {
        return Mono.usingWhen(
                        Mono.from(connectionFactory().create()),
                        connection -> Flux.from(connection.createStatement(sql).execute())
                                .concatMap(result -> result.map((row, metadata) -> row.get(0, Long.class)))
                                .next(),
                        Connection::close)
                .block(HANG);
    }

    /** A fence table and a one-row counter table (protected by it) for one test, dropped on close. */
    final class Tables implements AutoCloseable {

        final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);

        final String fenceTable = "fence_" + this.suffix;

        final String counterTable = "counter_" + this.suffix;

        Tables() {
            FenceGuard guard = guard(true);
            List<String> ddl = new ArrayList<>();
            ddl.add(dialect.createTableSql(guard.table()));
            ddl.add("CREATE TABLE " + this.counterTable
                    + " (name VARCHAR(16) NOT NULL PRIMARY KEY, val BIGINT NOT NULL)");
            ddl.add("INSERT INTO " + this.counterTable + " (name, val) VALUES ('c', 0)");
            ddl.addAll(FenceProtection.ddl(dialect, guard.table(), this.counterTable));
            run(ddl);
        }

        /** A guard on this test's fence table protecting its counter table; {@code checkInClient} as given. */
        FenceGuard guard(boolean checkInClient) {
            return FenceGuard.builder()
                    .table(this.fenceTable)
                    .protectedTables(this.counterTable)
                    .checkInClient(checkInClient)
                    .build();
        }

        long counter() {
            return readLong("SELECT val FROM " + this.counterTable + " WHERE name = 'c'");
        }

        Long storedToken(String resource) {
            return readLong("SELECT token FROM " + this.fenceTable + " WHERE resource = '" + resource + "'");
        }

        @Override
        public void close() {
            String routine = "fencelock_check_" + this.fenceTable;
            run(List.of(
                    "DROP TABLE IF EXISTS " + this.counterTable,
                    "DROP TABLE IF EXISTS " + this.fenceTable,
                    (dialect == FenceDialect.POSTGRESQL)
                            ? "DROP FUNCTION IF EXISTS " + routine + "()"
                            : "DROP PROCEDURE IF EXISTS " + routine));
        }
    }
}
