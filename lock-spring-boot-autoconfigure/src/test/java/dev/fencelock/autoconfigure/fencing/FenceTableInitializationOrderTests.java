package dev.fencelock.autoconfigure.fencing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.Driver;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/**
 * The fence table initializer is one of Boot's database initializers: it runs after Flyway and
 * Liquibase (so with {@code initialize-schema=never} a migration may be what creates the table),
 * and before the beans that depend on database initialization.
 */
class FenceTableInitializationOrderTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockFencingAutoConfiguration.class))
            .withBean(
                    "dataSource",
                    DataSource.class,
                    () -> new SimpleDriverDataSource(
                            new Driver(), "jdbc:h2:mem:order-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", ""))
            .withPropertyValues("fencelock.backend=in-memory");

    @Test
    void runWithFlywayMigrationOfTheTableShouldStartWithInitializeSchemaNever() {
        this.runner
                .withConfiguration(AutoConfigurations.of(FlywayAutoConfiguration.class))
                .withPropertyValues(
                        "spring.flyway.locations=classpath:db/fencelock/flyway",
                        "fencelock.fencing.jdbc.initialize-schema=never")
                .run((context) -> {
                    assertThat(context).hasNotFailed().hasSingleBean(DataSource.class);
                    assertThat(dependsOn(context, "fenceTableInitializer")).contains("flywayInitializer");
                    assertThat(fenceRows(context)).isZero();
                });
    }

    @Test
    void runWithLiquibaseChangelogOfTheTableShouldStartWithInitializeSchemaNever() {
        this.runner
                .withConfiguration(AutoConfigurations.of(LiquibaseAutoConfiguration.class))
                .withPropertyValues(
                        "spring.liquibase.change-log=classpath:db/fencelock/liquibase/changelog.sql",
                        "fencelock.fencing.jdbc.initialize-schema=never")
                .run((context) -> {
                    assertThat(context).hasNotFailed().hasSingleBean(DataSource.class);
                    assertThat(dependsOn(context, "fenceTableInitializer")).contains("liquibase");
                    assertThat(fenceRows(context)).isZero();
                });
    }

    @Test
    void runWithBeanThatDependsOnDatabaseInitializationShouldCreateItAfterTheTable() {
        this.runner
                .withPropertyValues("fencelock.fencing.jdbc.initialize-schema=always")
                .withBean("fenceRowCounter", FenceRowCounter.class)
                .run((context) -> {
                    assertThat(context).hasNotFailed().hasSingleBean(DataSource.class);
                    assertThat(dependsOn(context, "fenceRowCounter")).contains("fenceTableInitializer");
                    assertThat(context.getBean(FenceRowCounter.class).rowsAtStartup)
                            .isZero();
                });
    }

    private static String[] dependsOn(AssertableApplicationContext context, String beanName) {
        String[] dependsOn =
                context.getBeanFactory().getBeanDefinition(beanName).getDependsOn();
        return (dependsOn != null) ? dependsOn : new String[0];
    }

    private static Integer fenceRows(AssertableApplicationContext context) {
        return new JdbcTemplate(context.getBean(DataSource.class))
                .queryForObject("SELECT COUNT(*) FROM fencelock_fence", Integer.class);
    }

    /** Reads the fence table while it is created: it fails unless the table exists by then. */
    @DependsOnDatabaseInitialization
    static class FenceRowCounter {

        final Integer rowsAtStartup;

        FenceRowCounter(DataSource dataSource) {
            this.rowsAtStartup =
                    new JdbcTemplate(dataSource).queryForObject("SELECT COUNT(*) FROM fencelock_fence", Integer.class);
        }
    }
}
