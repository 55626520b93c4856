package dev.fencelock.autoconfigure.fencing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

/** {@code initialize-schema} against the servers of {@code scripts/start-databases.sh}. */
class FenceTableInitializerDatabaseTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockFencingAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory");

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void runWithServerDatabaseAndDefaultModeShouldFailNamingTablePropertyAndDdl(TestDatabase database) {
        DataSource dataSource = database.dataSource();
        String table = "fence_missing_" + suffix();
        this.runner
                .withBean("dataSource", DataSource.class, () -> dataSource)
                .withPropertyValues("fencelock.fencing.jdbc.table=" + table)
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasMessageContaining("Fence table '" + table + "' does not exist")
                        .hasMessageContaining("fencelock.fencing.jdbc.initialize-schema is 'embedded' and this"
                                + " database is not embedded")
                        .hasMessageContaining("CREATE TABLE IF NOT EXISTS " + table + " (resource VARCHAR(255)"));
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void runWithInitializeSchemaNeverShouldFailWhenTableMissing(TestDatabase database) {
        DataSource dataSource = database.dataSource();
        String table = "fence_missing_" + suffix();
        this.runner
                .withBean("dataSource", DataSource.class, () -> dataSource)
                .withPropertyValues(
                        "fencelock.fencing.jdbc.table=" + table, "fencelock.fencing.jdbc.initialize-schema=never")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasMessageContaining("Fence table '" + table + "' does not exist")
                        .hasMessageContaining("fencelock.fencing.jdbc.initialize-schema is 'never'"));
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void runWithInitializeSchemaAlwaysShouldCreateTable(TestDatabase database) {
        DataSource dataSource = database.dataSource();
        String table = "fence_created_" + suffix();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        try {
            this.runner
                    .withBean("dataSource", DataSource.class, () -> dataSource)
                    .withPropertyValues(
                            "fencelock.fencing.jdbc.table=" + table, "fencelock.fencing.jdbc.initialize-schema=always")
                    .run((context) -> {
                        assertThat(context).hasNotFailed();
                        assertThat(jdbc.queryForObject("select count(*) from " + table, Integer.class))
                                .isZero();
                    });
        } finally {
            jdbc.execute("drop table if exists " + table);
        }
    }

    private static String suffix() {
        return UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }
}
