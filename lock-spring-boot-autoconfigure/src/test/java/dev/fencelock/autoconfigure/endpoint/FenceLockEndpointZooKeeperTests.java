package dev.fencelock.autoconfigure.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.LockRequest;
import dev.fencelock.actuate.FenceLockEndpoint;
import dev.fencelock.audit.LockAuditLog;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.audit.FenceLockAuditAutoConfiguration;
import dev.fencelock.autoconfigure.zookeeper.FenceLockZooKeeperAutoConfiguration;
import dev.fencelock.test.zookeeper.ZooKeeperEnsembleExtension;
import dev.fencelock.zookeeper.ZooKeeperLockBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Two application instances with {@code fencelock.backend=zookeeper} on a real ZooKeeper server: the endpoint
 * shows one's lock with the other waiting, an operator takes it away, the waiter gets it and the old holder is
 * told its lock was lost.
 */
class FenceLockEndpointZooKeeperTests {

    @RegisterExtension
    static final ZooKeeperEnsembleExtension zookeeper = ZooKeeperEnsembleExtension.members(1);

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
    void forceReleaseShouldHandTheLockToTheWaiterAndTellTheOldHolderItIsLost() {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockZooKeeperAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockAuditAutoConfiguration.class,
                        FenceLockEndpointAutoConfiguration.class))
                .withPropertyValues(
                        "fencelock.backend=zookeeper",
                        "fencelock.zookeeper.connect-string=" + zookeeper.connectString(),
                        "management.endpoints.web.exposure.include=fencelock",
                        "management.endpoint.fencelock.access=UNRESTRICTED");
        runner.run((first) -> runner.run((second) -> {
            assertThat(first).hasSingleBean(ZooKeeperLockBackend.class);
            assertThat(second).hasSingleBean(ZooKeeperLockBackend.class);
            ZooKeeperLockBackend firstBackend = first.getBean(ZooKeeperLockBackend.class);
            LockLease stuck = first.getBean(LockClient.class)
                    .acquire(LockRequest.builder("order:1").lockName("orders").build());
            AtomicReference<LockLostException> lost = new AtomicReference<>();
            stuck.onLost(lost::set);
            CompletableFuture<LockLease> waiting = second.getBean(LockClient.class)
                    .acquireAsync(LockRequest.builder("order:1")
                            .lockName("orders")
                            .waitTimeout(Duration.ofSeconds(60))
                            .build());
            FenceLockEndpoint firstEndpoint = first.getBean(FenceLockEndpoint.class);
            FenceLockEndpoint operator = second.getBean(FenceLockEndpoint.class);

            FenceLockEndpoint.HeldLocksDescriptor held = firstEndpoint.heldLocks();
            assertThat(held.backend()).startsWith("zookeeper://");
            assertThat(held.locks()).singleElement().satisfies((lock) -> {
                assertThat(lock.resource()).isEqualTo("order:1");
                assertThat(lock.lockName()).isEqualTo("orders");
                assertThat(lock.fencingToken()).isEqualTo(stuck.fencingToken());
            });
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> operator.queue("order:1").waiters().size() == 1);
            FenceLockEndpoint.QueueDescriptor queue = operator.queue("order:1");
            assertThat(queue.holders()).hasSize(1);
            assertThat(queue.holder().fencingToken()).isEqualTo(stuck.fencingToken());
            // The lease a lock lives on is its ZooKeeper session.
            assertThat(queue.holder().leaseId()).isEqualTo(stuck.leaseId());
            assertThat(firstBackend.sessionDeadlines()).containsKey(stuck.leaseId());
            assertThat(queue.holder().record()).contains("\"instance\"");
            assertThat(queue.waiters().get(0).fencingToken()).isGreaterThan(stuck.fencingToken());
            // Each token is the creation zxid of the entry's node, as the server has it.
            assertThat(creationZxids(firstBackend.resourcePath("order:1")))
                    .containsExactlyInAnyOrder(
                            queue.holder().fencingToken(),
                            queue.waiters().get(0).fencingToken());

            FenceLockEndpoint.ForceReleaseDescriptor result = operator.forceRelease("order:1", SecurityContext.NONE);
            assertThat(result.released()).isTrue();
            assertThat(result.removed().fencingToken()).isEqualTo(stuck.fencingToken());
            assertThat(result.removed().leaseId()).isEqualTo(stuck.leaseId());

            try (LockLease next = waiting.get(30, TimeUnit.SECONDS)) {
                assertThat(next.fencingToken()).isEqualTo(queue.waiters().get(0).fencingToken());
                assertThat(next.fencingToken()).isGreaterThan(stuck.fencingToken());
                assertThat(operator.queue("order:1").holder().fencingToken()).isEqualTo(next.fencingToken());
                // The old holder learns of the deletion from its node's watch, and stops trusting the lock.
                await().atMost(Duration.ofSeconds(30)).until(() -> lost.get() != null);
                assertThat(stuck.isValid()).isFalse();
                assertThat(firstEndpoint.heldLocks().locks()).isEmpty();
            }
            assertThat(this.audit.list)
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .anySatisfy((line) -> assertThat(line)
                            .startsWith("event=force-release outcome=released resource=\"order:1\"")
                            .contains(
                                    " leaseId=" + stuck.leaseId(),
                                    " token=" + stuck.fencingToken(),
                                    " instance=\""
                                            + second.getBean(ZooKeeperLockBackend.class)
                                                    .instanceId() + "\""));
        }));
    }

    @Test
    void forceReleaseOfAResourceNobodyHoldsShouldReleaseNothing() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockZooKeeperAutoConfiguration.class,
                        FenceLockAutoConfiguration.class,
                        FenceLockAuditAutoConfiguration.class,
                        FenceLockEndpointAutoConfiguration.class))
                .withPropertyValues(
                        "fencelock.backend=zookeeper",
                        "fencelock.zookeeper.connect-string=" + zookeeper.connectString(),
                        "management.endpoints.web.exposure.include=fencelock",
                        "management.endpoint.fencelock.access=UNRESTRICTED")
                .run((context) -> {
                    FenceLockEndpoint operator = context.getBean(FenceLockEndpoint.class);
                    FenceLockEndpoint.QueueDescriptor queue = operator.queue("nobody:1");
                    assertThat(queue.holder()).isNull();
                    assertThat(queue.waiters()).isEmpty();
                    FenceLockEndpoint.ForceReleaseDescriptor result =
                            operator.forceRelease("nobody:1", SecurityContext.NONE);
                    assertThat(result.released()).isFalse();
                    assertThat(result.removed()).isNull();
                });
    }

    /** The creation zxid of every node below {@code path}, read with a client of the test's own. */
    private static List<Long> creationZxids(String path) throws Exception {
        CompletableFuture<Void> connected = new CompletableFuture<>();
        ZooKeeper reader = new ZooKeeper(zookeeper.connectString(), 30_000, (event) -> {
            if (event.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.complete(null);
            }
        });
        try {
            connected.get(30, TimeUnit.SECONDS);
            List<Long> zxids = new ArrayList<>();
            for (String child : reader.getChildren(path, false)) {
                Stat stat = new Stat();
                reader.getData(path + "/" + child, false, stat);
                zxids.add(stat.getCzxid());
            }
            return zxids;
        } finally {
            reader.close();
        }
    }
}
