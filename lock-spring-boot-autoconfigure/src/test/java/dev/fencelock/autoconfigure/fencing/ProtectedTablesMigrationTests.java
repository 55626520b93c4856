package dev.fencelock.autoconfigure.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.jdbc.FencedDataSource;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The protected-table migrations that docs/fencing.md shows (docs/migrations/), run by Flyway on
 * PostgreSQL and Liquibase on MariaDB in an application that does not create anything itself
 * ({@code initialize-schema=never}): it starts, its fenced writes pass, and a write past its fenced
 * data source is refused by the database. Without the migration, startup stops naming the DDL.
 */
class ProtectedTablesMigrationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockFencingAutoConfiguration.class))
            .withPropertyValues(
                    "fencelock.backend=in-memory",
                    "fencelock.fencing.jdbc.initialize-schema=never",
                    "fencelock.fencing.jdbc.protected-tables=stock");

    @Test
    void flywayMigrationOfTheDocsProtectsTheTableOnPostgresql() throws Exception {
        String schema = "fl_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        TestDatabase.POSTGRESQL.dataSource(); // reachable, or the test fails naming the server
        DataSource dataSource = new SimpleDriverDataSource(
                new org.postgresql.Driver(),
                TestDatabase.POSTGRESQL.url() + "?currentSchema=" + schema,
                "fencelock",
                "fencelock");
        try {
            this.runner
                    .withConfiguration(AutoConfigurations.of(FlywayAutoConfiguration.class))
                    .withBean("dataSource", DataSource.class, () -> dataSource)
                    .withPropertyValues(
                            "spring.flyway.schemas=" + schema,
                            "spring.flyway.locations=classpath:db/fencelock/protected,"
                                    + "filesystem:../docs/migrations/postgresql")
                    .run(this::writesPassOnlyThroughTheFence);
        } finally {
            new JdbcTemplate(TestDatabase.POSTGRESQL.dataSource())
                    .execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    @Test
    void liquibaseChangelogOfTheDocsProtectsTheTableOnMariadb() {
        JdbcTemplate plain = new JdbcTemplate(TestDatabase.MARIADB.dataSource());
        plain.execute("DROP TABLE IF EXISTS stock");
        plain.execute("CREATE TABLE stock (sku VARCHAR(64) NOT NULL PRIMARY KEY, qty INT NOT NULL)");
        plain.execute("INSERT INTO stock VALUES ('apple', 100)");
        try {
            this.runner
                    .withConfiguration(AutoConfigurations.of(LiquibaseAutoConfiguration.class))
                    .withBean("dataSource", DataSource.class, () -> TestDatabase.MARIADB.dataSource())
                    .withPropertyValues(
                            "spring.liquibase.change-log=file:../docs/migrations/mariadb/fencelock-protect-stock.sql",
                            "spring.liquibase.database-change-log-table=fl_changelog",
                            "spring.liquibase.database-change-log-lock-table=fl_changelog_lock")
                    .run(this::writesPassOnlyThroughTheFence);
        } finally {
            plain.execute("DROP TABLE IF EXISTS stock");
            plain.execute("DROP TABLE IF EXISTS fl_changelog");
            plain.execute("DROP TABLE IF EXISTS fl_changelog_lock");
        }
    }

    @Test
    void withoutTheMigrationStartupStopsNamingTheTriggersToAdd() {
        JdbcTemplate plain = new JdbcTemplate(TestDatabase.MARIADB.dataSource());
        plain.execute("DROP TABLE IF EXISTS stock");
        plain.execute("CREATE TABLE stock (sku VARCHAR(64) NOT NULL PRIMARY KEY, qty INT NOT NULL)");
        plain.execute("CREATE TABLE IF NOT EXISTS fencelock_fence (resource VARCHAR(255) CHARACTER SET utf8mb4"
                + " COLLATE utf8mb4_bin NOT NULL PRIMARY KEY, token BIGINT NOT NULL, updated_at DATETIME(6) NOT NULL)");
        try {
            this.runner
                    .withBean("dataSource", DataSource.class, () -> TestDatabase.MARIADB.dataSource())
                    .run((context) -> assertThat(context)
                            .getFailure()
                            .rootCause()
                            .hasMessageContaining("Protected tables [stock]")
                            .hasMessageContaining("CREATE OR REPLACE TRIGGER stock_fencelock_u"));
        } finally {
            plain.execute("DROP TABLE IF EXISTS stock");
        }
    }

    private void writesPassOnlyThroughTheFence(AssertableApplicationContext context) {
        assertThat(context).hasNotFailed();
        DataSource fenced = context.getBean(DataSource.class);
        assertThat(fenced).isInstanceOf(FencedDataSource.class);
        try (FencingContext.Scope fence = FencingContext.push(new Fence("stock:apple", 9, null))) {
            new TransactionTemplate(new DataSourceTransactionManager(fenced))
                    .executeWithoutResult((status) ->
                            new JdbcTemplate(fenced).update("UPDATE stock SET qty = 99 WHERE sku = 'apple'"));
        }
        JdbcTemplate pool = new JdbcTemplate(((FencedDataSource) fenced).getTarget());
        assertThatThrownBy(() -> pool.update("UPDATE stock SET qty = 1 WHERE sku = 'apple'"))
                .hasStackTraceContaining("carries no fence");
        assertThat(pool.queryForObject("SELECT qty FROM stock WHERE sku = 'apple'", Integer.class))
                .isEqualTo(99);
    }
}
