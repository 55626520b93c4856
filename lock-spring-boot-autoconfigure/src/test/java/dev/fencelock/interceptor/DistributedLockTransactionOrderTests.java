package dev.fencelock.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.fencelock.LockEventListener;
import dev.fencelock.LockLease;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.DefaultTransactionStatus;

/**
 * The lock must wrap the transaction: acquired before it begins, released after it commits or
 * rolls back. Otherwise the next holder could start while this holder's writes are uncommitted.
 */
class DistributedLockTransactionOrderTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class, FenceLockEtcdAutoConfiguration.class, FenceLockAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory")
            .withUserConfiguration(TransactionConfiguration.class);

    @Test
    void lockShouldBeAcquiredBeforeBeginAndReleasedAfterCommit() {
        this.runner.run((context) -> {
            Events events = context.getBean(Events.class);
            context.getBean(StockService.class).reserve("sku-1");
            assertThat(events.list)
                    .containsExactly("acquired stock:sku-1", "begin", "write", "commit", "released stock:sku-1");
            assertThat(context.getBean(JdbcTemplate.class)
                            .queryForObject("select count(*) from reservation", Integer.class))
                    .isOne();
        });
    }

    @Test
    void lockShouldBeAcquiredBeforeBeginAndReleasedAfterRollback() {
        this.runner.run((context) -> {
            Events events = context.getBean(Events.class);
            assertThatIllegalStateException()
                    .isThrownBy(() -> context.getBean(StockService.class).reserveAndFail("sku-2"));
            assertThat(events.list)
                    .containsExactly("acquired stock:sku-2", "begin", "write", "rollback", "released stock:sku-2");
            assertThat(context.getBean(JdbcTemplate.class)
                            .queryForObject("select count(*) from reservation", Integer.class))
                    .isZero();
        });
    }

    static class Events implements LockEventListener {

        final List<String> list = new CopyOnWriteArrayList<>();

        @Override
        public void acquired(LockLease lease, String lockName, Duration waited, boolean reentered) {
            this.list.add("acquired " + lease.resource());
        }

        @Override
        public void released(LockLease lease, String lockName, Duration held, Duration took) {
            this.list.add("released " + lease.resource());
        }
    }

    /** Records where a real JDBC transaction begins and ends. */
    static class RecordingTransactionManager extends DataSourceTransactionManager {

        private final Events events;

        RecordingTransactionManager(DataSource dataSource, Events events) {
            super(dataSource);
            this.events = events;
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
            super.doBegin(transaction, definition);
            this.events.list.add("begin");
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            super.doCommit(status);
            this.events.list.add("commit");
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
            super.doRollback(status);
            this.events.list.add("rollback");
        }
    }

    public static class StockService {

        private final JdbcTemplate jdbc;

        private final Events events;

        StockService(JdbcTemplate jdbc, Events events) {
            this.jdbc = jdbc;
            this.events = events;
        }

        @Transactional
        @DistributedLock(key = "'stock:' + #sku")
        public void reserve(String sku) {
            this.jdbc.update("insert into reservation (sku) values (?)", sku);
            this.events.list.add("write");
        }

        @Transactional
        @DistributedLock(key = "'stock:' + #sku")
        public void reserveAndFail(String sku) {
            reserve(sku);
            throw new IllegalStateException("out of stock");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class TransactionConfiguration {

        @Bean(destroyMethod = "shutdown")
        org.springframework.jdbc.datasource.embedded.EmbeddedDatabase dataSource() {
            return new EmbeddedDatabaseBuilder()
                    .setType(EmbeddedDatabaseType.H2)
                    .generateUniqueName(true)
                    .addScript("classpath:dev/fencelock/interceptor/reservation.sql")
                    .build();
        }

        @Bean
        Events events() {
            return new Events();
        }

        @Bean
        RecordingTransactionManager transactionManager(DataSource dataSource, Events events) {
            return new RecordingTransactionManager(dataSource, events);
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }

        @Bean
        StockService stockService(JdbcTemplate jdbcTemplate, Events events) {
            return new StockService(jdbcTemplate, events);
        }
    }
}
