package dev.fencelock.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.fencelock.FencingContext;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.ResourceName;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.autoconfigure.fencing.FenceLockFencingAutoConfiguration;
import dev.fencelock.autoconfigure.fencing.TestDatabaseAccess;
import dev.fencelock.autoconfigure.metrics.FenceLockMetricsAutoConfiguration;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A money transfer under {@code @DistributedLock} and {@code @Transactional} on real etcd and
 * PostgreSQL, whose lock is force-released by another instance at a chosen moment. What the caller
 * is told must match what the database holds: a transfer that committed is not reported as
 * failed (a caller that retried it would move the money twice), a loss before the commit rolls
 * the transfer back, and an unknown commit outcome is reported as unknown.
 */
class LockLostAroundCommitEtcdTests {

    private static final String LOCK_NAME = "'account:' + #from";

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private static final AtomicLong accounts = new AtomicLong(1);

    private static Tables tables;

    private static DataSource database;

    private static LockClient operator;

    @BeforeAll
    static void createTables() {
        database = TestDatabaseAccess.postgresql();
        tables = new Tables(UUID.randomUUID().toString().replace("-", "").substring(0, 12));
        tables.create(new JdbcTemplate(database));
        // Another instance on the same etcd, as an operator's force-release through the endpoint.
        operator = LockClient.builder(
                        EtcdLockBackend.builder().endpoints(etcd.endpoints()).build())
                .build();
    }

    @AfterAll
    static void dropTables() {
        if (operator != null) {
            operator.close();
        }
        if (tables != null) {
            tables.drop(new JdbcTemplate(database));
        }
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockFencingAutoConfiguration.class,
                        FenceLockMetricsAutoConfiguration.class))
                .withUserConfiguration(TransferConfiguration.class)
                .withBean(SimpleMeterRegistry.class)
                .withBean(Tables.class, () -> tables)
                .withBean("dataSource", DataSource.class, () -> database)
                .withPropertyValues(
                        "fencelock.etcd.endpoints=" + String.join(",", etcd.endpoints()),
                        "fencelock.fencing.jdbc.table=" + tables.fence,
                        "fencelock.fencing.jdbc.initialize-schema=always");
    }

    @Test
    void lossAfterTheCommitReturnsTheResultAndTheTransferIsInTheDatabaseOnce() {
        runner().run((context) -> {
            long from = newAccount(100);
            long to = newAccount(0);
            String transfer = UUID.randomUUID().toString();

            long balance = transfers(context).transfer(transfer, from, to, 30, LoseLock.AFTER_COMMIT);

            assertThat(balance).isEqualTo(70);
            assertThat(tables.transfers(transfer)).isOne();
            assertThat(tables.balance(from)).isEqualTo(70);
            assertThat(tables.balance(to)).isEqualTo(30);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("fencelock.lost")
                            .tag("lock", LOCK_NAME)
                            .counter()
                            .count())
                    .isOne();
            assertThat(registry.get("fencelock.lost.after.commit")
                            .tag("lock", LOCK_NAME)
                            .counter()
                            .count())
                    .isOne();
        });
    }

    @Test
    void lossBeforeTheCommitRollsTheTransferBackAndFailsTheCall() {
        runner().run((context) -> {
            long from = newAccount(100);
            long to = newAccount(0);
            String transfer = UUID.randomUUID().toString();

            assertThatExceptionOfType(LockLostException.class)
                    .isThrownBy(() -> transfers(context).transfer(transfer, from, to, 30, LoseLock.BEFORE_COMMIT))
                    .withMessageContaining("rolled back")
                    .withMessageNotContaining("Retry");

            assertThat(tables.transfers(transfer)).isZero();
            assertThat(tables.balance(from)).isEqualTo(100);
            assertThat(tables.balance(to)).isZero();
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("fencelock.lost.after.commit")
                            .tag("lock", LOCK_NAME)
                            .counter()
                            .count())
                    .isZero();
        });
    }

    @Test
    void lossWithACommitOfUnknownOutcomeSaysSoAndAdvisesNoRetry() {
        runner().run((context) -> {
            long from = newAccount(100);
            long to = newAccount(0);
            String transfer = UUID.randomUUID().toString();

            assertThatExceptionOfType(LockLostException.class)
                    .isThrownBy(() -> transfers(context).transfer(transfer, from, to, 30, LoseLock.COMMIT_UNKNOWN))
                    .withMessageContaining("unknown")
                    .withMessageContaining("Check what the database holds")
                    .withMessageNotContaining("Retry")
                    .satisfies((lost) -> assertThat(lost.getSuppressed())
                            .singleElement()
                            .isInstanceOf(TransactionSystemException.class));
            // The commit did reach the database: a blind retry would have moved the money twice.
            assertThat(tables.transfers(transfer)).isOne();
        });
    }

    @Test
    void lossInAMethodWithoutATransactionFailsTheCallWithoutAdvisingARetry() {
        runner().run((context) -> {
            long from = newAccount(100);

            assertThatExceptionOfType(LockLostException.class)
                    .isThrownBy(() -> transfers(context).check(from))
                    .withMessageContaining("no transaction")
                    .withMessageNotContaining("Retry");
        });
    }

    private static TransferService transfers(ApplicationContext context) {
        return context.getBean(TransferService.class);
    }

    private static long newAccount(long balance) {
        long id = accounts.getAndIncrement();
        new JdbcTemplate(database)
                .update("insert into " + tables.accounts + " (id, balance) values (?, ?)", id, balance);
        return id;
    }

    /**
     * Force-releases the lock of the current locked call through another instance and waits until
     * this instance has seen the loss. FenceLock interrupts a holder that loses its lock; the
     * interrupt is kept for whatever runs next, as it would be in an application.
     */
    static void loseTheLock() {
        FencingContext.Fence fence = FencingContext.current().orElseThrow();
        LockLease lease = fence.lease();
        CountDownLatch lost = new CountDownLatch(1);
        lease.onLost((cause) -> lost.countDown());
        operator.administration().orElseThrow().forceRelease(ResourceName.of(fence.resource(), 255));
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                if (!lost.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
                    throw new AssertionError("lock '" + fence.resource() + "' was not lost within 30s");
                }
                break;
            } catch (InterruptedException ex) {
                interrupted = true;
            }
        }
        assertThat(lease.isValid()).isFalse();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    enum LoseLock {
        BEFORE_COMMIT,
        AFTER_COMMIT,
        COMMIT_UNKNOWN
    }

    /** The accounts, transfers and fence table of this test class. */
    static final class Tables {

        final String accounts;

        final String transfers;

        final String fence;

        Tables(String suffix) {
            this.accounts = "account_" + suffix;
            this.transfers = "transfer_" + suffix;
            this.fence = "fence_" + suffix;
        }

        void create(JdbcTemplate jdbc) {
            jdbc.execute("create table " + this.accounts + " (id bigint primary key, balance bigint not null)");
            jdbc.execute(
                    "create table " + this.transfers + " (id varchar(40) primary key, from_account bigint not null,"
                            + " to_account bigint not null, amount bigint not null, token bigint not null)");
        }

        void drop(JdbcTemplate jdbc) {
            for (String table : new String[] {this.accounts, this.transfers, this.fence}) {
                jdbc.execute("drop table if exists " + table);
            }
        }

        int transfers(String id) {
            return new JdbcTemplate(database)
                    .queryForObject("select count(*) from " + this.transfers + " where id = ?", Integer.class, id);
        }

        long balance(long account) {
            return new JdbcTemplate(database)
                    .queryForObject("select balance from " + this.accounts + " where id = ?", Long.class, account);
        }
    }

    /** Commits, then reports the commit as failed when asked to: a connection lost during the commit. */
    static class UnreliableCommitTransactionManager extends DataSourceTransactionManager {

        static final ThreadLocal<Boolean> failNextCommit = ThreadLocal.withInitial(() -> false);

        UnreliableCommitTransactionManager(DataSource dataSource) {
            super(dataSource);
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            super.doCommit(status);
            if (failNextCommit.get()) {
                failNextCommit.set(false);
                loseTheLock();
                throw new TransactionSystemException("Connection reset while committing");
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class TransferConfiguration {

        @Bean
        DataSourceTransactionManager transactionManager(DataSource dataSource) {
            return new UnreliableCommitTransactionManager(dataSource);
        }

        @Bean
        TransferService transferService(DataSource dataSource, Tables tables) {
            return new TransferService(new JdbcTemplate(dataSource), tables);
        }
    }

    public static class TransferService {

        private final JdbcTemplate jdbc;

        private final Tables tables;

        TransferService(JdbcTemplate jdbc, Tables tables) {
            this.jdbc = jdbc;
            this.tables = tables;
        }

        /** Moves {@code amount} and returns what is left on {@code from}. */
        @DistributedLock(key = "'account:' + #from", waitTimeout = "5s")
        @Transactional
        public long transfer(String id, long from, long to, long amount, LoseLock loseLock) {
            this.jdbc.update(
                    "update " + this.tables.accounts + " set balance = balance - ? where id = ?", amount, from);
            this.jdbc.update("update " + this.tables.accounts + " set balance = balance + ? where id = ?", amount, to);
            this.jdbc.update(
                    "insert into " + this.tables.transfers
                            + " (id, from_account, to_account, amount, token) values (?, ?, ?, ?, ?)",
                    id,
                    from,
                    to,
                    amount,
                    FencingContext.current().orElseThrow().token());
            long left = this.jdbc.queryForObject(
                    "select balance from " + this.tables.accounts + " where id = ?", Long.class, from);
            // Nothing is written after this point: only the commit decides what the database keeps.
            switch (loseLock) {
                case BEFORE_COMMIT -> loseTheLock();
                case AFTER_COMMIT ->
                    TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                        @Override
                        public void afterCommit() {
                            loseTheLock();
                        }
                    });
                case COMMIT_UNKNOWN -> UnreliableCommitTransactionManager.failNextCommit.set(true);
            }
            return left;
        }

        /** Reads nothing, writes nothing, runs in no transaction; loses its lock on the way. */
        @DistributedLock(key = "'account:' + #from", waitTimeout = "5s")
        public void check(long from) {
            loseTheLock();
        }
    }
}
