package dev.fencelock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencelock.LockClient;
import dev.fencelock.LockLostException;
import dev.fencelock.audit.LockAuditLog;
import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockBackend;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A leader frozen past its lease (SIGSTOP, a long GC) wakes up: its heartbeat finds the lock's
 * validity gone before anything has reported the loss (the backend's deadline check has not run
 * yet), and the initiator unlocks. The loss must reach the listeners as a loss (the lost counter,
 * an audit line {@code event=lost}), not pass for a release of a lock that was already gone.
 */
class FrozenHolderTest {

    private final ListAppender<ILoggingEvent> audit = new ListAppender<>();

    @BeforeEach
    void captureAuditLog() {
        this.audit.start();
        Logger logger = (Logger) LoggerFactory.getLogger(LockAuditLog.LOGGER_NAME);
        logger.setLevel(Level.DEBUG);
        logger.addAppender(this.audit);
    }

    @AfterEach
    void stopCapturing() {
        Logger logger = (Logger) LoggerFactory.getLogger(LockAuditLog.LOGGER_NAME);
        logger.detachAppender(this.audit);
        logger.setLevel(null);
    }

    @Test
    void aLeaderWhoseLeaseRanOutWhileFrozenIsReportedLostWhenItUnlocks() {
        FreezableBackend backend = new FreezableBackend();
        try (LockClient client = LockClient.builder(backend)
                .eventListener(new LockAuditLog("leader-1"))
                .callbackExecutor(Runnable::run)
                .build()) {
            FencedLock lock = FenceLockRegistry.builder(client).build().obtain("billing-leader");
            lock.lock();

            backend.freeze(); // the lease ran out while the process was stopped; nothing has noticed yet

            // The initiator's heartbeat re-enters, fails, and unlocks, as LockRegistryLeaderInitiator does.
            assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::tryLock);
            assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);

            assertThat(this.audit.list)
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .filteredOn((line) -> !line.startsWith("event=acquire"))
                    .satisfiesExactly(
                            (line) -> assertThat(line)
                                    .startsWith("event=lost outcome=lost resource=\"integration:billing-leader\"")
                                    .contains("lock=\"spring-integration\""),
                            (line) -> assertThat(line).startsWith("event=release outcome=already-gone"));
        }
    }

    /** Grants at once; {@link #freeze()} makes every granted lock's validity run out without a word. */
    static final class FreezableBackend implements LockBackend {

        private final AtomicLong tokens = new AtomicLong(100);

        private volatile long validUntilNanos = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);

        void freeze() {
            this.validUntilNanos = System.nanoTime() - 1;
        }

        @Override
        public CompletableFuture<BackendLock> acquire(AcquireCommand command) {
            return CompletableFuture.completedFuture(
                    new BackendLock(
                            command.resource(),
                            command.requestId(),
                            7L,
                            this.tokens.incrementAndGet(),
                            command.kind()) {
                        @Override
                        public long validUntilNanos() {
                            return FreezableBackend.this.validUntilNanos;
                        }
                    });
        }

        @Override
        public CompletableFuture<Long> renew(BackendLock lock) {
            return CompletableFuture.completedFuture(this.validUntilNanos);
        }

        /** The store expired the lease meanwhile: nothing is left to delete. */
        @Override
        public CompletableFuture<Boolean> release(BackendLock lock) {
            lock.markReleased();
            return CompletableFuture.completedFuture(false);
        }

        @Override
        public String describe() {
            return "freezable";
        }

        @Override
        public void close() {}
    }
}
