package dev.fencelock.docs;

import dev.fencelock.FencingContext;
import dev.fencelock.LockClient;
import dev.fencelock.shedlock.FenceLockProvider;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.transaction.annotation.Transactional;

/** docs/integrations.md, "ShedLock". */
class ShedLockSnippet {

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    @EnableSchedulerLock(defaultLockAtMostFor = "10m")
    static class SchedulingConfiguration {}

    static class InvoiceReminders {

        private final ReminderWriter writer;

        InvoiceReminders(ReminderWriter writer) {
            this.writer = writer;
        }

        @Scheduled(cron = "0 0 8 * * *")
        @SchedulerLock(name = "invoice-reminders", lockAtMostFor = "30m", lockAtLeastFor = "1m")
        public void send() {
            // Locked on etcd; FencingContext holds the lock's fence while this method runs.
            this.writer.writeReminders();
        }
    }

    static class ReminderWriter {

        private final JdbcTemplate jdbc;

        ReminderWriter(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional
        public void writeReminders() {
            // The transaction begins and commits inside the lock; its first statement presents the fence.
            this.jdbc.update("INSERT INTO reminder (invoice_id) SELECT id FROM invoice WHERE state = 'due'");
        }
    }

    static class ReminderSlots {

        private final JdbcTemplate jdbc;

        ReminderSlots(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional
        public void writeRemindersOnce(LocalDate slot) {
            // The slot is claimed in the same fenced transaction as its work: a second run of the slot,
            // by a replica that woke from a pause after the first run's lock was released, writes nothing.
            long token = FencingContext.current().orElseThrow().token();
            int claimed = this.jdbc.update(
                    "INSERT INTO job_slot (job, slot, fencing_token) SELECT 'invoice-reminders', ?, ?"
                            + " WHERE NOT EXISTS (SELECT 1 FROM job_slot WHERE job = 'invoice-reminders' AND slot = ?)",
                    slot,
                    token,
                    slot);
            if (claimed == 0) {
                return; // this slot has run already
            }
            this.jdbc.update("INSERT INTO reminder (invoice_id) SELECT id FROM invoice WHERE state = 'due'");
        }
    }

    static void withoutSpring(LockClient client) {
        FenceLockProvider provider = new FenceLockProvider(client);
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
        executor.executeWithLock(
                (Runnable) () -> {
                    long token = FencingContext.current().orElseThrow().token();
                    // ... writes that carry the token
                },
                new LockConfiguration(
                        Instant.now(), "invoice-reminders", Duration.ofMinutes(30), Duration.ofMinutes(1)));
    }
}
