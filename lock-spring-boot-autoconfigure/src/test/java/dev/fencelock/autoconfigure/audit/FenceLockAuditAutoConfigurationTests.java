package dev.fencelock.autoconfigure.audit;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.audit.LockAuditLog;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class FenceLockAuditAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockAuditAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory");

    private final ListAppender<ILoggingEvent> audit = new ListAppender<>();

    @BeforeEach
    void captureAuditLog() {
        this.audit.start();
        Logger logger = (Logger) LoggerFactory.getLogger(LockAuditLog.LOGGER_NAME);
        // Acquire and release lines are DEBUG: routine events do not flood the default log.
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
    void acquireAndReleaseShouldWriteAuditLines() {
        this.runner.run((context) -> {
            assertThat(context).hasSingleBean(LockAuditLog.class);
            LockClient client = context.getBean(LockClient.class);
            LockLease lease = client.acquire(
                    LockRequest.builder("order:1").lockName("orders").build());
            lease.release();
            assertThat(this.audit.list)
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .satisfiesExactly(
                            (line) -> assertThat(line)
                                    .startsWith("event=acquire outcome=acquired resource=\"order:1\" lock=\"orders\"")
                                    .contains(" leaseId=" + lease.leaseId(), " token=" + lease.fencingToken())
                                    .contains(":"
                                            + ManagementFactory.getRuntimeMXBean()
                                                    .getPid() + "\""),
                            (line) -> assertThat(line)
                                    .startsWith("event=release outcome=released resource=\"order:1\" lock=\"orders\"")
                                    .contains(" token=" + lease.fencingToken()));
        });
    }

    @Test
    void runWhenDisabledShouldNotCreateAuditLog() {
        this.runner.withPropertyValues("fencelock.audit.enabled=false").run((context) -> {
            assertThat(context).doesNotHaveBean(LockAuditLog.class);
            context.getBean(LockClient.class).acquire(LockRequest.of("order:2")).release();
            assertThat(this.audit.list).isEmpty();
        });
    }

    @Test
    void runWithUserAuditLogShouldBackOff() {
        this.runner
                .withBean("myAuditLog", LockAuditLog.class, () -> new LockAuditLog("custom"))
                .run((context) -> {
                    assertThat(context).getBeans(LockAuditLog.class).containsOnlyKeys("myAuditLog");
                    context.getBean(LockClient.class)
                            .acquire(LockRequest.of("order:3"))
                            .release();
                    assertThat(this.audit.list)
                            .extracting(ILoggingEvent::getFormattedMessage)
                            .isNotEmpty()
                            .allMatch((line) -> line.contains("instance=\"custom\""));
                });
    }

    @Test
    void runWhenFenceLockIsDisabledShouldNotCreateAuditLog() {
        this.runner
                .withPropertyValues("fencelock.enabled=false")
                .run((context) -> assertThat(context).doesNotHaveBean(LockAuditLog.class));
    }
}
