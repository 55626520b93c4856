package dev.fencelock.autoconfigure.fencing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Everyday Spring transactions under a lock, on the databases FenceLock fences: a read-only
 * transaction, a {@code REQUIRES_NEW} transaction inside a locked one (the audit-log pattern), and
 * a second fenced data source on the same database. Each session gives up on a row lock after 5 s,
 * so a transaction that waits for its own thread fails instead of hanging.
 */
class FencedSpringTransactionsTests {

    private static final String RESOURCE = "account:42";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockFencingAutoConfiguration.class))
            .withPropertyValues(
                    "fencelock.backend=in-memory",
                    "fencelock.fencing.jdbc.initialize-schema=always",
                    "fencelock.fencing.jdbc.table=fence_tx_"
                            + UUID.randomUUID().toString().substring(0, 8));

    @ParameterizedTest(name = "{0}, enforce read-only: {1}")
    @CsvSource({"h2, false", "postgresql, false", "postgresql, true", "mariadb, false", "mariadb, true"})
    void aReadOnlyTransactionUnderALockReads(String database, boolean enforceReadOnly) {
        run(database, (context, accounts) -> {
            DataSourceTransactionManager manager =
                    new DataSourceTransactionManager(context.getBean("dataSource", DataSource.class));
            manager.setEnforceReadOnly(enforceReadOnly);
            TransactionTemplate readOnly = new TransactionTemplate(manager);
            readOnly.setReadOnly(true);
            try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null))) {
                Integer balance = readOnly.execute((status) -> jdbc(context)
                        .queryForObject("SELECT balance FROM " + accounts + " WHERE id = 42", Integer.class));
                assertThat(balance).isEqualTo(100);
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void aRequiresNewTransactionInsideALockedOneCommitsWithoutWaitingForIt(String database) {
        run(database, (context, accounts) -> {
            DataSourceTransactionManager manager =
                    new DataSourceTransactionManager(context.getBean("dataSource", DataSource.class));
            TransactionTemplate outer = new TransactionTemplate(manager);
            TransactionTemplate audit = new TransactionTemplate(manager);
            audit.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
            try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null))) {
                outer.executeWithoutResult((status) -> {
                    jdbc(context).update("UPDATE " + accounts + " SET balance = balance - 10 WHERE id = 42");
                    audit.executeWithoutResult((inner) ->
                            jdbc(context).update("UPDATE " + accounts + " SET balance = balance + 1 WHERE id = 43"));
                });
            }
            assertThat(balance(context, accounts, 42)).isEqualTo(90);
            assertThat(balance(context, accounts, 43)).isEqualTo(1);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void aSecondFencedDataSourceOnTheSameDatabaseWritesInsideALockedTransaction(String database) {
        run(database, (context, accounts) -> {
            DataSource first = context.getBean("dataSource", DataSource.class);
            DataSource second = context.getBean("secondDataSource", DataSource.class);
            TransactionTemplate outer = new TransactionTemplate(new DataSourceTransactionManager(first));
            TransactionTemplate other = new TransactionTemplate(new DataSourceTransactionManager(second));
            try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, 9, null))) {
                outer.executeWithoutResult((status) -> {
                    new JdbcTemplate(first).update("UPDATE " + accounts + " SET balance = 50 WHERE id = 42");
                    other.executeWithoutResult((inner) ->
                            new JdbcTemplate(second).update("UPDATE " + accounts + " SET balance = 5 WHERE id = 43"));
                });
            }
            assertThat(balance(context, accounts, 42)).isEqualTo(50);
            assertThat(balance(context, accounts, 43)).isEqualTo(5);
        });
    }

    private interface Scenario {
        void run(ApplicationContext context, String accounts);
    }

    private void run(String database, Scenario scenario) {
        String url = url(database);
        this.runner
                .withBean(
                        "dataSource",
                        DataSource.class,
                        () -> dataSource(database, url),
                        (bean) -> bean.setPrimary(true))
                .withBean("secondDataSource", DataSource.class, () -> dataSource(database, url))
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    String accounts = "accounts_"
                            + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
                    JdbcTemplate jdbc = jdbc(context);
                    jdbc.execute("CREATE TABLE " + accounts + " (id INT PRIMARY KEY, balance INT NOT NULL)");
                    try {
                        jdbc.update("INSERT INTO " + accounts + " VALUES (42, 100), (43, 0)");
                        scenario.run(context, accounts);
                    } finally {
                        jdbc.execute("DROP TABLE " + accounts);
                        jdbc.execute(
                                "DROP TABLE " + context.getEnvironment().getProperty("fencelock.fencing.jdbc.table"));
                    }
                });
    }

    private static String url(String database) {
        return switch (database) {
            case "h2" -> "jdbc:h2:mem:tx_" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=30000";
            case "postgresql" -> TestDatabase.POSTGRESQL.url() + "?options=-c%20lock_timeout=30000";
            case "mariadb" -> TestDatabase.MARIADB.url() + "?sessionVariables=innodb_lock_wait_timeout=30";
            default -> throw new IllegalArgumentException(database);
        };
    }

    private static DataSource dataSource(String database, String url) {
        if (database.equals("h2")) {
            return new SimpleDriverDataSource(new org.h2.Driver(), url, "sa", "");
        }
        TestDatabase server = database.equals("postgresql") ? TestDatabase.POSTGRESQL : TestDatabase.MARIADB;
        server.dataSource(); // fails the test with a clear message when the server is not running
        java.sql.Driver driver =
                database.equals("postgresql") ? new org.postgresql.Driver() : new org.mariadb.jdbc.Driver();
        return new SimpleDriverDataSource(driver, url, "fencelock", "fencelock");
    }

    private static JdbcTemplate jdbc(ApplicationContext context) {
        return new JdbcTemplate(context.getBean("dataSource", DataSource.class));
    }

    private static int balance(ApplicationContext context, String accounts, int id) {
        return jdbc(context).queryForObject("SELECT balance FROM " + accounts + " WHERE id = " + id, Integer.class);
    }
}
