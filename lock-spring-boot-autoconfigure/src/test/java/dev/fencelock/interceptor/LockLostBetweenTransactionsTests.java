package dev.fencelock.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import dev.fencelock.FencingContext;
import dev.fencelock.LockLostException;
import dev.fencelock.StatementTally;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.memory.InMemoryLockStore;
import java.time.Duration;
import java.util.UUID;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A locked call that reads in one transaction, loses its lock, and then tries to write in a second
 * one (which is refused and rolls back): the caller's {@link LockLostException} says what was
 * committed, and it must not claim a write where the committed transaction only read, nor deny one
 * where it may have written.
 */
class LockLostBetweenTransactionsTests {

    private final InMemoryLockStore store = new InMemoryLockStore();

    private final InMemoryLockBackend backend = InMemoryLockBackend.sharing(this.store);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class, FenceLockEtcdAutoConfiguration.class, FenceLockAutoConfiguration.class))
            .withBean(InMemoryLockBackend.class, () -> this.backend)
            .withPropertyValues(
                    "fencelock.backend=in-memory", "fencelock.lease-ttl=1s", "fencelock.aspect.interrupt-on-lost=false")
            .withUserConfiguration(DatabaseConfiguration.class);

    @AfterEach
    void closeStore() {
        this.store.close();
    }

    @Test
    void aReadOnlyTransactionThatCommittedBeforeTheLossIsReportedAsNothingWritten() {
        assertThat(lossAfter((database) -> database.read(true)))
                .contains("nothing was written")
                .doesNotContain("had committed");
    }

    @Test
    void aTransactionWhoseStatementsWereAllReportedAsReadsIsReportedAsNothingWritten() {
        String message = lossAfter((database) -> database.read(false, () -> StatementTally.ran(false)));

        assertThat(message).contains("nothing was written").doesNotContain("had committed");
    }

    @Test
    void aTransactionWithAStatementReportedAsAWriteIsReportedAsCommittedWrites() {
        String message = lossAfter((database) -> database.read(false, () -> StatementTally.ran(true)));

        assertThat(message)
                .contains("after 1 of its transactions had committed writes")
                .contains("a blind retry would repeat the committed part")
                .doesNotContain("nothing was written");
    }

    @Test
    void aTransactionThatIsNotReadOnlyAndOfWhichNothingWasReportedIsNeitherCalledAWriteNorNothing() {
        String message = lossAfter((database) -> database.read(false));

        assertThat(message)
                .contains("after 1 of its transactions had committed")
                .contains("Whether they wrote anything is not known")
                .contains("not declared read-only")
                .doesNotContain("nothing was written")
                .doesNotContain("committed writes");
    }

    @Test
    void aWriteInARequiresNewTransactionCountsForThatTransactionAloneNotForTheOneAroundIt() {
        String message = lossAfter((database) -> database.read(false, () -> {
            StatementTally.ran(false);
            database.inNewTransaction(() -> StatementTally.ran(true));
            StatementTally.ran(false);
        }));

        assertThat(message).contains("after 1 of its transactions had committed writes");
    }

    /** Runs {@code before}, loses the lock, then tries to write; returns the message of the call's failure. */
    private String lossAfter(Consumer<Database> before) {
        String[] message = new String[1];
        this.runner.run((context) -> {
            Database database = context.getBean(Database.class);
            Worker worker = context.getBean(Worker.class);
            assertThatExceptionOfType(LockLostException.class)
                    .isThrownBy(() -> worker.readThenWrite(UUID.randomUUID().toString(), () -> {
                        before.accept(database);
                        loseTheLock();
                        database.write();
                    }))
                    .satisfies((lost) -> message[0] = lost.getMessage());
            assertThat(database.rows())
                    .as("the write after the loss rolled back")
                    .isZero();
        });
        return message[0];
    }

    /** Stops this instance's keep-alives and waits until its lease has run out, as a pause would. */
    private void loseTheLock() {
        FencingContext.Fence fence = FencingContext.current().orElseThrow();
        this.backend.pauseRenewals();
        await().atMost(Duration.ofSeconds(10)).until(() -> !fence.isValid());
    }

    @Configuration(proxyBeanMethods = false)
    static class DatabaseConfiguration {

        @Bean
        DataSource dataSource() {
            return new DriverManagerDataSource("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "");
        }

        @Bean
        DataSourceTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        Database database(DataSource dataSource, DataSourceTransactionManager transactionManager) {
            return new Database(new JdbcTemplate(dataSource), transactionManager);
        }

        @Bean
        Worker worker() {
            return new Worker();
        }
    }

    public static class Worker {

        @DistributedLock(key = "'order:' + #id", waitTimeout = "5s")
        public void readThenWrite(String id, Runnable work) {
            work.run();
        }
    }

    /** One table; each method runs in a transaction of its own through a {@link TransactionTemplate}. */
    static class Database {

        private final JdbcTemplate jdbc;

        private final DataSourceTransactionManager transactionManager;

        Database(JdbcTemplate jdbc, DataSourceTransactionManager transactionManager) {
            this.jdbc = jdbc;
            this.transactionManager = transactionManager;
            jdbc.execute("create table if not exists item (id int primary key)");
        }

        void read(boolean readOnly) {
            read(readOnly, () -> {});
        }

        /** A transaction that reads, with {@code alongside} run inside it too. */
        void read(boolean readOnly, Runnable alongside) {
            TransactionTemplate template = new TransactionTemplate(this.transactionManager);
            template.setReadOnly(readOnly);
            template.executeWithoutResult((status) -> {
                this.jdbc.queryForObject("select count(*) from item", Integer.class);
                alongside.run();
            });
        }

        void inNewTransaction(Runnable work) {
            TransactionTemplate template = new TransactionTemplate(this.transactionManager);
            template.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
            template.executeWithoutResult((status) -> work.run());
        }

        void write() {
            new TransactionTemplate(this.transactionManager)
                    .executeWithoutResult((status) -> this.jdbc.update("insert into item (id) values (1)"));
        }

        int rows() {
            return this.jdbc.queryForObject("select count(*) from item", Integer.class);
        }
    }
}
