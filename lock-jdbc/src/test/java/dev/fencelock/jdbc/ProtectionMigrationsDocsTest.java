package dev.fencelock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The migrations docs/fencing.md shows for protected tables (docs/migrations/) hold exactly the
 * statements {@link FenceProtection#ddl} makes, so that a team copying them gets what FenceLock would
 * install itself. The migrations themselves run in FenceLock's Spring Boot tests (Flyway on
 * PostgreSQL, Liquibase on MariaDB).
 */
class ProtectionMigrationsDocsTest {

    @ParameterizedTest
    @CsvSource({"POSTGRESQL, postgresql/V2__fencelock_protect_stock.sql", "MARIADB, mariadb/fencelock-protect-stock.sql"
    })
    void theDocumentedMigrationHoldsTheStatementsFenceLockInstalls(FenceDialect dialect, String file)
            throws IOException {
        String migration = Files.readString(Path.of("..", "docs", "migrations").resolve(file));
        assertThat(migration).contains(dialect.createTableSql(FenceTable.defaults()));
        for (String statement : FenceProtection.ddl(dialect, FenceTable.defaults(), "stock")) {
            assertThat(migration).contains(statement);
        }
    }

    @org.junit.jupiter.api.Test
    void theTriggersClassNameIsWrittenAsTheClassIsNamed() {
        // Written as text so that applications without H2 never load the class.
        assertThat(FenceProtection.H2_TRIGGER).isEqualTo(H2FenceTrigger.class.getName());
    }
}
