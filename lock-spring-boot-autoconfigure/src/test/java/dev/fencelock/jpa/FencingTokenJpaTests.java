package dev.fencelock.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockException;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.autoconfigure.fencing.FenceLockFencingAutoConfiguration;
import dev.fencelock.autoconfigure.fencing.FenceLockJpaFencingAutoConfiguration;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.OptimisticLockException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.hibernate.StaleStateException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.orm.jpa.SharedEntityManagerCreator;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Row-level fencing of an entity with a {@link FencingToken} column, on H2 and PostgreSQL: the
 * current holder updates the row and stamps its token; a replaced holder (a token lower than the
 * row's) changes nothing and gets a {@link FencingTokenRejectedException}.
 */
class FencingTokenJpaTests {

    private static final String RESOURCE = "stock:apple";

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void updateWithCurrentTokenShouldStampTheRow(String database) {
        run(database, (context) -> {
            update(context, 5, 9, false);
            assertThat(row(context)).containsEntry("QUANTITY", 9).containsEntry("FENCE_TOKEN", 5L);
            update(context, 5, 8, false);
            assertThat(row(context)).containsEntry("QUANTITY", 8).containsEntry("FENCE_TOKEN", 5L);
        });
    }

    /**
     * Hibernate logs a statement before its statement inspector adds the fencing condition, so
     * org.hibernate.SQL shows the update without it; dev.fencelock.jpa.SQL logs what is sent.
     */
    @Test
    void theFencedUpdateAsSentIsLoggedAtDebugWhereHibernatesLogShowsItWithoutTheCondition() {
        ListAppender<ILoggingEvent> fenced = capture(FencingStatementInspector.LOGGER_NAME);
        ListAppender<ILoggingEvent> hibernate = capture("org.hibernate.SQL");
        try {
            run("h2", (context) -> update(context, 5, 9, true));
        } finally {
            release(FencingStatementInspector.LOGGER_NAME, fenced);
            release("org.hibernate.SQL", hibernate);
        }
        assertThat(hibernate.list)
                .extracting(ILoggingEvent::getFormattedMessage)
                .filteredOn((line) -> line.contains("update fenced_stock"))
                .isNotEmpty()
                .allSatisfy((line) -> assertThat(line).doesNotContain("fence_token<=5"));
        assertThat(fenced.list)
                .extracting(ILoggingEvent::getFormattedMessage)
                .singleElement()
                .satisfies((line) ->
                        assertThat(line).contains("update fenced_stock").contains("and fence_token<=5"));
    }

    private static ListAppender<ILoggingEvent> capture(String loggerName) {
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        Logger logger = (Logger) LoggerFactory.getLogger(loggerName);
        logger.setLevel(Level.DEBUG);
        logger.addAppender(appender);
        return appender;
    }

    private static void release(String loggerName, ListAppender<ILoggingEvent> appender) {
        Logger logger = (Logger) LoggerFactory.getLogger(loggerName);
        logger.detachAppender(appender);
        logger.setLevel(null);
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void updateByReplacedHolderShouldBeRejectedAndLeaveTheRow(String database) {
        run(database, (context) -> {
            newerHolderWrote(context, 9, 9);
            assertThatExceptionOfType(FencingTokenRejectedException.class)
                    .isThrownBy(() -> update(context, 7, 1, true))
                    .withMessageContaining("fenced_stock.fence_token")
                    .withMessageContaining("token 7")
                    .satisfies((ex) -> assertThat(ex.getResource()).isEqualTo(RESOURCE));
            assertThat(row(context)).containsEntry("QUANTITY", 9).containsEntry("FENCE_TOKEN", 9L);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void updateByReplacedHolderWithSqlCommentsShouldBeRejectedAndLeaveTheRow(String database) {
        // hibernate.use_sql_comments puts "/* update for ... */" before every statement.
        run(database, List.of("spring.jpa.properties.hibernate.use_sql_comments=true"), (context) -> {
            newerHolderWrote(context, 9, 9);
            assertThatExceptionOfType(FencingTokenRejectedException.class)
                    .isThrownBy(() -> update(context, 7, 1, true))
                    .withMessageContaining("fenced_stock.fence_token");
            assertThat(row(context)).containsEntry("QUANTITY", 9).containsEntry("FENCE_TOKEN", 9L);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void updateByReplacedHolderThroughACommentingInspectorShouldBeRejectedAndLeaveTheRow(String database) {
        // An application inspector that tags statements for tracing, SQL-commenter style.
        List<String> properties = List.of("spring.jpa.properties.hibernate.session_factory.statement_inspector="
                + TraceCommentInspector.class.getName());
        run(database, properties, (context) -> {
            newerHolderWrote(context, 9, 9);
            assertThatExceptionOfType(FencingTokenRejectedException.class)
                    .isThrownBy(() -> update(context, 7, 1, true))
                    .withMessageContaining("fenced_stock.fence_token");
            assertThat(row(context)).containsEntry("QUANTITY", 9).containsEntry("FENCE_TOKEN", 9L);
            assertThat(TraceCommentInspector.inspected()).isPositive();
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void deleteByReplacedHolderShouldBeRejectedAndLeaveTheRow(String database) {
        run(database, (context) -> {
            newerHolderWrote(context, 9, 9);
            assertThatExceptionOfType(FencingTokenRejectedException.class)
                    .isThrownBy(() -> remove(context, 7))
                    .withMessageContaining("fenced_stock.fence_token");
            assertThat(row(context)).containsEntry("QUANTITY", 9).containsEntry("FENCE_TOKEN", 9L);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void deleteByCurrentHolderShouldDeleteTheRow(String database) {
        run(database, (context) -> {
            newerHolderWrote(context, 9, 9);
            remove(context, 9);
            assertThat(new JdbcTemplate(context.getBean(DataSource.class))
                            .queryForObject("select count(*) from fenced_stock", Integer.class))
                    .isZero();
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void updateByReplacedHolderFlushedAtCommitShouldFailWithTheRejectionAsCause(String database) {
        run(database, (context) -> {
            newerHolderWrote(context, 9, 9);
            assertThatThrownBy(() -> update(context, 7, 1, false))
                    .isInstanceOf(TransactionSystemException.class)
                    .hasRootCauseInstanceOf(FencingTokenRejectedException.class);
            assertThat(row(context)).containsEntry("QUANTITY", 9).containsEntry("FENCE_TOKEN", 9L);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2"})
    void updateByReplacedHolderWithoutFencedDataSourceShouldFailAsOptimisticLock(String database) {
        run(database, List.of("fencelock.fencing.enabled=false"), (context) -> {
            newerHolderWrote(context, 9, 9);
            assertThatExceptionOfType(OptimisticLockException.class)
                    .isThrownBy(() -> update(context, 7, 1, true))
                    .withCauseInstanceOf(StaleStateException.class);
            assertThat(row(context)).containsEntry("QUANTITY", 9).containsEntry("FENCE_TOKEN", 9L);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2"})
    void updateWithoutLockShouldBeRefused(String database) {
        run(database, (context) -> {
            assertThatThrownBy(() -> transaction(context)
                            .executeWithoutResult((status) -> entityManager(context)
                                    .find(FencedStock.class, "apple")
                                    .setQuantity(3)))
                    .hasRootCauseInstanceOf(LockException.class)
                    .rootCause()
                    .hasMessageContaining("No fencing token");
            assertThat(row(context)).containsEntry("QUANTITY", 10);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2"})
    void startupWithAnUnfencingStatementInspectorShouldFailNamingTheTables(String database) {
        // Without FenceLock's auto-configuration nothing puts the fencing inspector around the application's.
        runner().withPropertyValues(
                        "fencelock.enabled=false",
                        "spring.jpa.properties.hibernate.session_factory.statement_inspector="
                                + NoopStatementInspector.class.getName())
                .run((context) -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("Entities with @FencingToken (tables [fenced_stock])")
                        .hasMessageContaining("FencingStatementInspector"));
    }

    private static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        HibernateJpaAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockFencingAutoConfiguration.class,
                        FenceLockJpaFencingAutoConfiguration.class))
                .withUserConfiguration(EntityConfiguration.class)
                .withPropertyValues(
                        "fencelock.backend=in-memory",
                        "fencelock.fencing.jdbc.initialize-schema=always",
                        "fencelock.fencing.jdbc.table=fence_jpa_" + suffix(),
                        "spring.jpa.hibernate.ddl-auto=create-drop");
    }

    private void run(String database, Consumer<ApplicationContext> test) {
        run(database, List.of(), test);
    }

    private void run(String database, List<String> properties, Consumer<ApplicationContext> test) {
        ApplicationContextRunner runner = runner().withPropertyValues(properties.toArray(String[]::new));
        if (!database.equals("h2")) {
            DataSource dataSource = database.equals("postgresql")
                    ? dev.fencelock.autoconfigure.fencing.TestDatabaseAccess.postgresql()
                    : dev.fencelock.autoconfigure.fencing.TestDatabaseAccess.mariadb();
            runner = runner.withBean("dataSource", DataSource.class, () -> dataSource);
        }
        runner.run((context) -> {
            assertThat(context).hasNotFailed();
            try {
                transaction(context)
                        .executeWithoutResult((status) -> entityManager(context).persist(new FencedStock("apple", 10)));
                test.accept(context);
            } finally {
                new JdbcTemplate(context.getBean(DataSource.class))
                        .execute("drop table if exists "
                                + context.getEnvironment().getProperty("fencelock.fencing.jdbc.table"));
            }
        });
    }

    /** Updates the quantity as the holder of {@code token}, flushing inside the method or at commit. */
    private static void update(ApplicationContext context, long token, int quantity, boolean flush) {
        try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, token, null))) {
            transaction(context).executeWithoutResult((status) -> {
                EntityManager entityManager = entityManager(context);
                entityManager.find(FencedStock.class, "apple").setQuantity(quantity);
                if (flush) {
                    entityManager.flush();
                }
            });
        }
    }

    /** Removes the entity as the holder of {@code token}. */
    private static void remove(ApplicationContext context, long token) {
        try (FencingContext.Scope fence = FencingContext.push(new Fence(RESOURCE, token, null))) {
            transaction(context).executeWithoutResult((status) -> {
                EntityManager entityManager = entityManager(context);
                entityManager.remove(entityManager.find(FencedStock.class, "apple"));
                entityManager.flush();
            });
        }
    }

    /**
     * A newer holder wrote the row through another path (another instance, hand-written SQL), so
     * the fence table has not seen its token: only the row can refuse the stale holder.
     */
    private static void newerHolderWrote(ApplicationContext context, long token, int quantity) {
        new JdbcTemplate(context.getBean(DataSource.class))
                .update("update fenced_stock set quantity = ?, fence_token = ? where sku = 'apple'", quantity, token);
    }

    private static Map<String, Object> row(ApplicationContext context) {
        Map<String, Object> row = new JdbcTemplate(context.getBean(DataSource.class))
                .queryForMap("select quantity, fence_token from fenced_stock where sku = 'apple'");
        Map<String, Object> upper = new java.util.HashMap<>();
        row.forEach((key, value) -> upper.put(key.toUpperCase(java.util.Locale.ROOT), value));
        return upper;
    }

    private static TransactionTemplate transaction(ApplicationContext context) {
        return new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
    }

    private static EntityManager entityManager(ApplicationContext context) {
        return SharedEntityManagerCreator.createSharedEntityManager(context.getBean(EntityManagerFactory.class));
    }

    private static String suffix() {
        return UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    @Configuration(proxyBeanMethods = false)
    @EntityScan(basePackageClasses = FencedStock.class)
    static class EntityConfiguration {}
}
