package dev.fencelock.autoconfigure.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.actuate.FenceLockEndpoint;
import dev.fencelock.audit.LockAuditLog;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.audit.FenceLockAuditAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Two application instances on a real etcd: one holds a lock, an operator takes it away, the other gets it. */
class FenceLockEndpointEtcdTests {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private final ListAppender<ILoggingEvent> audit = new ListAppender<>();

    @BeforeEach
    void captureAuditLog() {
        this.audit.start();
        ((Logger) LoggerFactory.getLogger(LockAuditLog.LOGGER_NAME)).addAppender(this.audit);
    }

    @AfterEach
    void stopCapturing() {
        ((Logger) LoggerFactory.getLogger(LockAuditLog.LOGGER_NAME)).detachAppender(this.audit);
    }

    @Test
    void forceReleaseShouldHandTheLockToTheWaiterWithALargerToken() {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockAuditAutoConfiguration.class,
                        FenceLockEndpointAutoConfiguration.class))
                .withPropertyValues(
                        "fencelock.etcd.endpoints=" + etcd.cluster().endpointsCsv(),
                        "management.endpoints.web.exposure.include=fencelock",
                        "management.endpoint.fencelock.access=UNRESTRICTED");
        runner.run((first) -> runner.run((second) -> {
            LockLease stuck = first.getBean(LockClient.class)
                    .acquire(LockRequest.builder("order:1").lockName("orders").build());
            CompletableFuture<LockLease> waiting = second.getBean(LockClient.class)
                    .acquireAsync(LockRequest.builder("order:1")
                            .lockName("orders")
                            .waitTimeout(Duration.ofSeconds(20))
                            .build());
            FenceLockEndpoint firstEndpoint = first.getBean(FenceLockEndpoint.class);
            FenceLockEndpoint operator = second.getBean(FenceLockEndpoint.class);

            assertThat(firstEndpoint.heldLocks().locks()).singleElement().satisfies((lock) -> {
                assertThat(lock.resource()).isEqualTo("order:1");
                assertThat(lock.lockName()).isEqualTo("orders");
                assertThat(lock.fencingToken()).isEqualTo(stuck.fencingToken());
            });
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> operator.queue("order:1").waiters().size() == 1);
            FenceLockEndpoint.QueueDescriptor queue = operator.queue("order:1");
            assertThat(queue.holder().fencingToken()).isEqualTo(stuck.fencingToken());
            assertThat(queue.holder().leaseId()).isEqualTo(stuck.leaseId());
            assertThat(queue.holder().record()).contains("\"instance\"");
            assertThat(queue.waiters().get(0).fencingToken()).isGreaterThan(stuck.fencingToken());

            FenceLockEndpoint.ForceReleaseDescriptor result = operator.forceRelease("order:1", SecurityContext.NONE);
            assertThat(result.released()).isTrue();
            assertThat(result.removed().fencingToken()).isEqualTo(stuck.fencingToken());

            try (LockLease next = waiting.get(30, TimeUnit.SECONDS)) {
                assertThat(next.fencingToken()).isGreaterThan(stuck.fencingToken());
                assertThat(operator.queue("order:1").holder().fencingToken()).isEqualTo(next.fencingToken());
            }
            assertThat(this.audit.list)
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .anySatisfy((line) -> assertThat(line)
                            .startsWith("event=force-release outcome=released resource=\"order:1\"")
                            .contains(
                                    " leaseId=" + stuck.leaseId(),
                                    " token=" + stuck.fencingToken(),
                                    " instance=\""
                                            + second.getBean(EtcdLockBackend.class)
                                                    .instanceId() + "\""));
        }));
    }
}
