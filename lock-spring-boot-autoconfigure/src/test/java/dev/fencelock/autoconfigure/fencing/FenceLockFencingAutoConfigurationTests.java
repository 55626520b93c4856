package dev.fencelock.autoconfigure.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencelock.FencingContext;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.audit.LockAuditLog;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.jdbc.FencedDataSource;
import dev.fencelock.jpa.FencingStatementInspector;
import dev.fencelock.metrics.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.support.TransactionTemplate;

class FenceLockFencingAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockFencingAutoConfiguration.class,
                    FenceLockJpaFencingAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory");

    @Test
    void runShouldWrapEachDataSourceOnceAndKeepThePoolReachable() {
        SimpleDriverDataSource database = new SimpleDriverDataSource(
                new org.h2.Driver(), "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "");
        this.runner.withBean("dataSource", DataSource.class, () -> database).run((context) -> {
            DataSource dataSource = context.getBean(DataSource.class);
            assertThat(dataSource).isInstanceOf(FencedDataSource.class);
            FencedDataSource fenced = (FencedDataSource) dataSource;
            assertThat(fenced.getTarget()).isSameAs(database);
            assertThat(fenced.getGuard()).isSameAs(context.getBean(FenceGuard.class));
            assertThat(dataSource.unwrap(FencedDataSource.class)).isSameAs(fenced);
            assertThat(dataSource.unwrap(SimpleDriverDataSource.class)).isSameAs(database);
        });
    }

    @Test
    void runWithAlreadyFencedDataSourceShouldNotWrapItAgain() {
        EmbeddedDatabase database = h2();
        FencedDataSource fenced = new FencedDataSource(database, FenceGuard.create());
        this.runner
                .withBean("dataSource", DataSource.class, () -> fenced)
                .run((context) -> assertThat(context.getBean(DataSource.class)).isSameAs(fenced));
    }

    @Test
    void runWithBootDataSourceShouldWrapIt() {
        this.runner
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .run((context) -> {
                    assertThat(context).hasSingleBean(DataSource.class);
                    assertThat(context.getBean(DataSource.class)).isInstanceOf(FencedDataSource.class);
                    assertThat(tableCount(context.getBean(DataSource.class))).isOne();
                });
    }

    @Test
    void runWhenFencingDisabledShouldNotWrapDataSource() {
        EmbeddedDatabase database = h2();
        this.runner
                .withBean("dataSource", DataSource.class, () -> database)
                .withPropertyValues("fencelock.fencing.enabled=false")
                .run((context) -> {
                    assertThat(context.getBean(DataSource.class)).isSameAs(database);
                    assertThat(context).doesNotHaveBean(FenceGuard.class);
                });
    }

    @Test
    void runWhenFenceLockDisabledShouldNotWrapDataSource() {
        EmbeddedDatabase database = h2();
        this.runner
                .withBean("dataSource", DataSource.class, () -> database)
                .withPropertyValues("fencelock.enabled=false")
                .run((context) -> assertThat(context.getBean(DataSource.class)).isSameAs(database));
    }

    @Test
    void runWithoutJdbcShouldBackOff() {
        this.runner
                .withClassLoader(new FilteredClassLoader(DataSource.class))
                .run((context) -> assertThat(context).doesNotHaveBean(FenceGuard.class));
    }

    @Test
    void runWithoutHibernateShouldStillFenceDataSources() {
        this.runner
                .withClassLoader(new FilteredClassLoader("org.hibernate", "org.springframework.boot.hibernate"))
                .withBean("dataSource", DataSource.class, this::h2)
                .run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(DataSource.class)).isInstanceOf(FencedDataSource.class);
                    assertThat(context).doesNotHaveBean(HibernatePropertiesCustomizer.class);
                });
    }

    @Test
    void runWithHibernateShouldSetTheFencingStatementInspector() {
        this.runner.withBean("dataSource", DataSource.class, this::h2).run((context) -> {
            Map<String, Object> properties = new HashMap<>();
            context.getBean(HibernatePropertiesCustomizer.class).customize(properties);
            assertThat(properties.get("hibernate.session_factory.statement_inspector"))
                    .isInstanceOf(FencingStatementInspector.class);
        });
    }

    @Test
    void runWhenFencingDisabledShouldStillFenceEntityRows() {
        this.runner
                .withBean("dataSource", DataSource.class, this::h2)
                .withPropertyValues("fencelock.fencing.enabled=false")
                .run((context) -> assertThat(context).hasSingleBean(HibernatePropertiesCustomizer.class));
    }

    @Test
    void runWithUserFenceGuardShouldUseIt() {
        FenceGuard guard = FenceGuard.builder().table("custom_fence").build();
        EmbeddedDatabase database = h2();
        this.runner
                .withBean("dataSource", DataSource.class, () -> database)
                .withBean(FenceGuard.class, () -> guard)
                .run((context) -> {
                    assertThat(context.getBean(FenceGuard.class)).isSameAs(guard);
                    assertThat(((FencedDataSource) context.getBean(DataSource.class)).getGuard())
                            .isSameAs(guard);
                    assertThat(tableCount(database, "CUSTOM_FENCE")).isOne();
                });
    }

    @Test
    void runShouldConfigureGuardFromProperties() {
        this.runner
                .withBean("dataSource", DataSource.class, this::h2)
                .withPropertyValues(
                        "fencelock.fencing.jdbc.table=app_fence",
                        "fencelock.fencing.jdbc.resource-length=100",
                        "fencelock.fencing.jdbc.dialect=h2",
                        "fencelock.fencing.jdbc.allow-procedure-calls=true")
                .run((context) -> {
                    FenceGuard guard = context.getBean(FenceGuard.class);
                    assertThat(guard.table().name()).isEqualTo("app_fence");
                    assertThat(guard.table().resourceLength()).isEqualTo(100);
                    assertThat(guard.allowsProcedureCalls()).isTrue();
                    assertThat(guard).hasToString("FenceGuard[table=app_fence, dialect=H2]");
                });
    }

    @Test
    void runWithInvalidTableNameShouldFailNamingTheProperty() {
        this.runner
                .withBean("dataSource", DataSource.class, this::h2)
                .withPropertyValues("fencelock.fencing.jdbc.table=fence; drop table x")
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("fencelock.fencing.jdbc.table")
                        .hasStackTraceContaining("fence; drop table x"));
    }

    @Test
    void runWithEmbeddedDatabaseShouldCreateTableByDefault() {
        EmbeddedDatabase database = h2();
        this.runner
                .withBean("dataSource", DataSource.class, () -> database)
                .run((context) ->
                        assertThat(tableCount(database, "FENCELOCK_FENCE")).isOne());
    }

    @Test
    void runWithInitializeSchemaAlwaysShouldCreateTableInFileDatabase() {
        String url = "jdbc:h2:file:./target/h2-fencing/" + UUID.randomUUID();
        DataSource database = new SimpleDriverDataSource(new org.h2.Driver(), url, "sa", "");
        this.runner
                .withBean("dataSource", DataSource.class, () -> database)
                .withPropertyValues("fencelock.fencing.jdbc.initialize-schema=always")
                .run((context) ->
                        assertThat(tableCount(database, "FENCELOCK_FENCE")).isOne());
    }

    @Test
    void runWithInitializeSchemaEmbeddedAndFileDatabaseShouldFailWhenTableMissing() {
        String url = "jdbc:h2:file:./target/h2-fencing/" + UUID.randomUUID();
        DataSource database = new SimpleDriverDataSource(new org.h2.Driver(), url, "sa", "");
        this.runner
                .withBean("dataSource", DataSource.class, () -> database)
                .run((context) -> assertThat(context)
                        .getFailure()
                        .hasMessageContaining("Fence table 'fencelock_fence' does not exist in the H2 database")
                        .hasMessageContaining("fencelock.fencing.jdbc.initialize-schema is 'embedded'"));
    }

    @Test
    void runWithInitializeSchemaNeverShouldFailNamingTablePropertyAndDdl() {
        EmbeddedDatabase database = h2();
        this.runner
                .withBean("dataSource", DataSource.class, () -> database)
                .withPropertyValues("fencelock.fencing.jdbc.initialize-schema=never")
                .run((context) -> {
                    assertThat(context)
                            .getFailure()
                            .hasRootCauseInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("Fence table 'fencelock_fence' does not exist")
                            .hasMessageContaining("DataSource bean 'dataSource'")
                            .hasMessageContaining("fencelock.fencing.jdbc.initialize-schema is 'never'")
                            .hasMessageContaining("CREATE TABLE IF NOT EXISTS fencelock_fence (resource VARCHAR(255)")
                            .hasMessageContaining("fencelock.fencing.jdbc.initialize-schema=always");
                    assertThat(tableCount(database, "FENCELOCK_FENCE")).isZero();
                });
    }

    @Test
    void runWithInitializeSchemaNeverAndExistingTableShouldStart() {
        EmbeddedDatabase database = h2();
        new JdbcTemplate(database).execute(h2Ddl());
        this.runner
                .withBean("dataSource", DataSource.class, () -> database)
                .withPropertyValues("fencelock.fencing.jdbc.initialize-schema=never")
                .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void rejectedWriteShouldBeCountedAndAudited() {
        MeterRegistry registry = new SimpleMeterRegistry();
        this.runner
                .withBean("dataSource", DataSource.class, this::h2)
                .withBean(LockMetrics.class, () -> new LockMetrics(registry))
                .withBean(LockAuditLog.class, () -> new LockAuditLog("test"))
                .run((context) -> {
                    DataSource dataSource = context.getBean(DataSource.class);
                    JdbcTemplate jdbc = new JdbcTemplate(dataSource);
                    jdbc.update("insert into fencelock_fence (resource, token, updated_at) values ('stock:1', 9,"
                            + " localtimestamp)");
                    TransactionTemplate transaction =
                            new TransactionTemplate(new DataSourceTransactionManager(dataSource));
                    try (FencingContext.Scope fence =
                            FencingContext.push(new FencingContext.Fence("stock:1", 7, null))) {
                        assertThatExceptionOfType(FencingTokenRejectedException.class)
                                .isThrownBy(() -> transaction.executeWithoutResult(
                                        (status) -> jdbc.queryForObject("select 1", Integer.class)))
                                .withMessageContaining("token 9");
                    }
                    assertThat(registry.get("fencelock.fencing.rejected")
                                    .tag("lock", FencingRejections.UNKNOWN_LOCK_NAME)
                                    .counter()
                                    .count())
                            .isOne();
                });
    }

    @Test
    void rejectedWriteUnderALockShouldBeCountedUnderItsLockName() {
        MeterRegistry registry = new SimpleMeterRegistry();
        this.runner
                .withBean("dataSource", DataSource.class, this::h2)
                .withBean(LockMetrics.class, () -> new LockMetrics(registry))
                .withPropertyValues("fencelock.backend=in-memory")
                .run((context) -> {
                    DataSource dataSource = context.getBean(DataSource.class);
                    JdbcTemplate jdbc = new JdbcTemplate(dataSource);
                    jdbc.update("insert into fencelock_fence (resource, token, updated_at) values ('stock:2', 1000,"
                            + " localtimestamp)");
                    TransactionTemplate transaction =
                            new TransactionTemplate(new DataSourceTransactionManager(dataSource));
                    try (LockLease lease = context.getBean(LockClient.class)
                                    .acquire(LockRequest.builder("stock:2")
                                            .lockName("stock")
                                            .build());
                            FencingContext.Scope fence = FencingContext.open(lease)) {
                        assertThatExceptionOfType(FencingTokenRejectedException.class)
                                .isThrownBy(() -> transaction.executeWithoutResult(
                                        (status) -> jdbc.queryForObject("select 1", Integer.class)));
                    }
                    assertThat(registry.get("fencelock.fencing.rejected")
                                    .tag("lock", "stock")
                                    .counter()
                                    .count())
                            .isOne();
                });
    }

    @Test
    void rejectedWriteUnderALockShouldBeAuditedWithItsLockItsLeaseAndWhoRefusedIt() {
        ListAppender<ILoggingEvent> audit = new ListAppender<>();
        audit.start();
        Logger logger = (Logger) LoggerFactory.getLogger(LockAuditLog.LOGGER_NAME);
        logger.addAppender(audit);
        try {
            this.runner
                    .withBean("dataSource", DataSource.class, this::h2)
                    .withBean(LockAuditLog.class, () -> new LockAuditLog("test"))
                    .run((context) -> {
                        DataSource dataSource = context.getBean(DataSource.class);
                        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
                        jdbc.update("insert into fencelock_fence (resource, token, updated_at) values ('stock:3',"
                                + " 1000, localtimestamp)");
                        TransactionTemplate transaction =
                                new TransactionTemplate(new DataSourceTransactionManager(dataSource));
                        try (LockLease lease = context.getBean(LockClient.class)
                                        .acquire(LockRequest.builder("stock:3")
                                                .lockName("stock")
                                                .build());
                                FencingContext.Scope fence = FencingContext.open(lease)) {
                            assertThatExceptionOfType(FencingTokenRejectedException.class)
                                    .isThrownBy(() -> transaction.executeWithoutResult(
                                            (status) -> jdbc.queryForObject("select 1", Integer.class)));
                            // The lease is valid: this instance did not refuse, the fence table did.
                            assertThat(audit.list)
                                    .extracting(ILoggingEvent::getFormattedMessage)
                                    .singleElement()
                                    .satisfies((line) -> assertThat(line)
                                            .startsWith("event=fencing outcome=rejected resource=\"stock:3\""
                                                    + " lock=\"stock\" leaseId=" + lease.leaseId() + " token="
                                                    + lease.fencingToken())
                                            .endsWith(" refusedBy=fence-table"));
                        }
                    });
        } finally {
            logger.detachAppender(audit);
        }
    }

    private EmbeddedDatabase h2() {
        return new EmbeddedDatabaseBuilder()
                .setType(EmbeddedDatabaseType.H2)
                .setName(UUID.randomUUID().toString())
                .build();
    }

    private static String h2Ddl() {
        return dev.fencelock.jdbc.FenceDialect.H2.createTableSql("fencelock_fence");
    }

    private static int tableCount(DataSource dataSource) {
        return tableCount(dataSource, "FENCELOCK_FENCE");
    }

    private static int tableCount(DataSource dataSource, String table) {
        return new JdbcTemplate(dataSource)
                .queryForObject(
                        "select count(*) from information_schema.tables where table_name = ?", Integer.class, table);
    }
}
