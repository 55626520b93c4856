package dev.fencelock.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.fencelock.FencingContext;
import dev.fencelock.LockClient;
import dev.fencelock.LockException;
import dev.fencelock.ResourceName;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.autoconfigure.fencing.FenceLockFencingAutoConfiguration;
import dev.fencelock.autoconfigure.shedlock.FenceLockShedLockAutoConfiguration;
import dev.fencelock.shedlock.FenceLockProvider;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * docs/integrations.md, "ShedLock": a slot run twice, the second time by a replica that woke from a
 * pause after the first run's lock was released (no overlap, each under its own lock and token),
 * does its work once, because each run claims its slot in the same fenced transaction; and a run
 * whose lock was taken over while it was paused claims nothing, so the slot is left to the holder.
 */
class ShedLockSlotsTest {

    private static final LocalDate SLOT = LocalDate.of(2026, 12, 1);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class,
                    JdbcTemplateAutoConfiguration.class,
                    TransactionAutoConfiguration.class,
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockFencingAutoConfiguration.class,
                    FenceLockShedLockAutoConfiguration.class))
            .withPropertyValues(
                    "fencelock.backend=in-memory",
                    "fencelock.fencing.jdbc.initialize-schema=always",
                    "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
            .withBean(ShedLockSnippet.ReminderSlots.class);

    @Test
    void aSlotRunAgainAfterTheFirstRunsLockWasReleasedWritesNothing() {
        this.runner.run((context) -> {
            JdbcTemplate jdbc = tables(context);
            ShedLockSnippet.ReminderSlots slots = context.getBean(ShedLockSnippet.ReminderSlots.class);
            LockingTaskExecutor executor = new DefaultLockingTaskExecutor(context.getBean(LockProvider.class));
            List<Long> tokens = new ArrayList<>();

            for (int run = 0; run < 2; run++) {
                // lockAtLeastFor zero: the second run starts as soon as the first one's lock is released.
                executor.executeWithLock(
                        (Runnable) () -> {
                            tokens.add(FencingContext.current().orElseThrow().token());
                            slots.writeRemindersOnce(SLOT);
                        },
                        configuration(Duration.ZERO));
            }

            // Both runs ran, each under a lock of its own: the second one was not skipped as a busy lock.
            assertThat(tokens).hasSize(2);
            assertThat(tokens.get(1)).isGreaterThan(tokens.get(0));
            assertThat(jdbc.queryForObject("SELECT count(*) FROM reminder", Integer.class))
                    .isEqualTo(2);
            assertThat(jdbc.queryForList("SELECT fencing_token FROM job_slot", Long.class))
                    .containsExactly(tokens.get(0));
        });
    }

    @Test
    void aRunWhoseLockWasTakenOverWhileItWasPausedClaimsNothing() {
        this.runner.run((context) -> {
            JdbcTemplate jdbc = tables(context);
            ShedLockSnippet.ReminderSlots slots = context.getBean(ShedLockSnippet.ReminderSlots.class);
            LockingTaskExecutor executor = new DefaultLockingTaskExecutor(context.getBean(LockProvider.class));
            LockClient client = context.getBean(LockClient.class);
            AtomicLong holderToken = new AtomicLong();
            CountDownLatch holderLocked = new CountDownLatch(1);
            CountDownLatch holderMayRun = new CountDownLatch(1);
            Throwable[] pausedRunFailure = new Throwable[1];
            CompletableFuture<?>[] holderRun = new CompletableFuture<?>[1];

            executor.executeWithLock(
                    (Runnable) () -> {
                        FencingContext.Fence paused = FencingContext.current().orElseThrow();
                        // While this run is paused, its lock ends (as a lease running out would) ...
                        client.administration()
                                .orElseThrow()
                                .forceRelease(ResourceName.of(
                                        FenceLockProvider.DEFAULT_RESOURCE_PREFIX + "invoice-reminders", 255))
                                .join();
                        await().atMost(Duration.ofSeconds(10)).until(() -> !paused.isValid());
                        // ... and the other replica takes it, and is about to run the slot.
                        holderRun[0] = CompletableFuture.runAsync(() -> executor.executeWithLock(
                                (Runnable) () -> {
                                    holderToken.set(FencingContext.current()
                                            .orElseThrow()
                                            .token());
                                    holderLocked.countDown();
                                    awaitLatch(holderMayRun);
                                    slots.writeRemindersOnce(SLOT);
                                },
                                configuration(Duration.ZERO)));
                        awaitLatch(holderLocked);
                        // The paused run wakes and runs the slot first.
                        pausedRunFailure[0] = catchThrowable(() -> slots.writeRemindersOnce(SLOT));
                        holderMayRun.countDown();
                    },
                    configuration(Duration.ZERO));
            holderRun[0].get(30, TimeUnit.SECONDS);

            assertThat(pausedRunFailure[0]).isInstanceOf(LockException.class);
            // The slot was claimed, and its work done, once, by the replica that held the lock.
            assertThat(jdbc.queryForList("SELECT fencing_token FROM job_slot", Long.class))
                    .containsExactly(holderToken.get());
            assertThat(jdbc.queryForObject("SELECT count(*) FROM reminder", Integer.class))
                    .isEqualTo(2);
        });
    }

    private static JdbcTemplate tables(ApplicationContext context) {
        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
        jdbc.execute("CREATE TABLE invoice (id BIGINT PRIMARY KEY, state VARCHAR(8) NOT NULL)");
        jdbc.execute("CREATE TABLE reminder (invoice_id BIGINT NOT NULL)");
        jdbc.execute("CREATE TABLE job_slot (job VARCHAR(64) NOT NULL, slot DATE NOT NULL,"
                + " fencing_token BIGINT NOT NULL, PRIMARY KEY (job, slot))");
        jdbc.update("INSERT INTO invoice (id, state) VALUES (1, 'due'), (2, 'due'), (3, 'paid')");
        return jdbc;
    }

    private static LockConfiguration configuration(Duration lockAtLeastFor) {
        return new LockConfiguration(Instant.now(), "invoice-reminders", Duration.ofMinutes(1), lockAtLeastFor);
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
