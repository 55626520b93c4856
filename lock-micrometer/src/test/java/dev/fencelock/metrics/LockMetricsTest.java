package dev.fencelock.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.LockStoreAccessDeniedException;
import dev.fencelock.ResourceName;
import dev.fencelock.audit.LockAuditLog;
import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.memory.InMemoryLockStore;
import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockBackend;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class LockMetricsTest {

    private final InMemoryLockStore store = new InMemoryLockStore();

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private final ListAppender<ILoggingEvent> auditLines = new ListAppender<>();

    private LockClient client;

    private LockClient other;

    @BeforeEach
    void createClients() {
        LockMetrics metrics = new LockMetrics(this.registry);
        this.client = LockClient.builder(InMemoryLockBackend.sharing(this.store))
                .eventListener(metrics)
                .eventListener(new LockAuditLog("test-instance"))
                .build();
        metrics.bindGauges(this.client);
        this.other = LockClient.builder(InMemoryLockBackend.sharing(this.store)).build();
        this.auditLines.start();
        Logger audit = (Logger) LoggerFactory.getLogger(LockAuditLog.LOGGER_NAME);
        audit.setLevel(Level.DEBUG);
        audit.addAppender(this.auditLines);
    }

    @AfterEach
    void close() {
        Logger audit = (Logger) LoggerFactory.getLogger(LockAuditLog.LOGGER_NAME);
        audit.detachAppender(this.auditLines);
        audit.setLevel(null);
        this.client.close();
        this.other.close();
        this.store.close();
    }

    @Test
    void acquireAndReleaseAreTimedUnderTheLockNameNotTheResource() {
        LockLease lease = this.client.acquire(
                LockRequest.builder("order:42").lockName("order").build());
        assertThat(this.registry
                        .get("fencelock.acquire")
                        .tags("lock", "order", "outcome", "acquired")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(this.registry
                        .get("fencelock.held")
                        .tag("lock", "order")
                        .longTaskTimer()
                        .activeTasks())
                .isEqualTo(1);
        assertThat(this.registry.get("fencelock.active").gauge().value()).isEqualTo(1.0);
        lease.release();
        assertThat(this.registry
                        .get("fencelock.release")
                        .tag("lock", "order")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(this.registry
                        .get("fencelock.held")
                        .tag("lock", "order")
                        .longTaskTimer()
                        .activeTasks())
                .isZero();
        assertThat(this.registry.get("fencelock.active").gauge().value()).isZero();
        assertThat(this.registry.getMeters())
                .noneMatch(meter -> meter.getId().getTags().stream()
                        .anyMatch(tag -> tag.getValue().contains("42")));
    }

    @Test
    void timeoutsAreCountedWithTheirOutcome() {
        LockLease held = this.other.acquire(LockRequest.of("busy"));
        assertThatThrownBy(() -> this.client.acquire(LockRequest.builder("busy")
                        .waitTimeout(Duration.ofMillis(100))
                        .build()))
                .isInstanceOf(LockAcquisitionTimeoutException.class);
        assertThat(this.registry
                        .get("fencelock.acquire")
                        .tags("lock", "unnamed", "outcome", "timeout")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(this.registry.get("fencelock.waiting").gauge().value()).isZero();
        held.release();
    }

    @Test
    void aTryThatFindsTheLockHeldIsAConflictAndAWaitThatRunsOutIsATimeout() {
        LockLease held = this.other.acquire(LockRequest.of("contended"));
        assertThat(this.client.tryAcquire(
                        LockRequest.builder("contended").lockName("contended").build()))
                .isEmpty();
        assertThatThrownBy(() -> this.client.acquire(LockRequest.builder("contended")
                        .lockName("contended")
                        .waitTimeout(Duration.ofMillis(100))
                        .build()))
                .isInstanceOf(LockAcquisitionTimeoutException.class);

        assertThat(this.registry
                        .get("fencelock.acquire")
                        .tags("lock", "contended", "outcome", "conflict")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(this.registry
                        .get("fencelock.acquire")
                        .tags("lock", "contended", "outcome", "timeout")
                        .timer()
                        .count())
                .isEqualTo(1);
        held.release();
    }

    @Test
    void theHottestResourcesAreGaugedByRankNeverByName() {
        LockLease held = this.other.acquire(LockRequest.of("hot:1"));
        assertThatThrownBy(() -> this.client.acquire(LockRequest.builder("hot:1")
                        .waitTimeout(Duration.ofMillis(200))
                        .build()))
                .isInstanceOf(LockAcquisitionTimeoutException.class);
        CompletableFuture<LockLease> waiting = this.client.acquireAsync(
                LockRequest.builder("hot:1").waitTimeout(Duration.ofSeconds(10)).build());

        await().atMost(Duration.ofSeconds(10))
                .until(() -> this.registry
                                .get("fencelock.hot.waiting")
                                .tag("rank", "1")
                                .gauge()
                                .value()
                        == 1.0);
        assertThat(this.registry
                        .get("fencelock.hot.waiters")
                        .tag("rank", "1")
                        .gauge()
                        .value())
                .isPositive();
        assertThat(this.registry
                        .get("fencelock.hot.waiters")
                        .tag("rank", "10")
                        .gauge()
                        .value())
                .isZero();
        assertThat(this.registry.find("fencelock.hot.waiters").gauges()).hasSize(10);
        assertThat(this.client.hotResources().get(0).resource()).isEqualTo("hot:1");
        assertThat(this.registry.getMeters())
                .noneMatch(meter -> meter.getId().getTags().stream()
                        .anyMatch(tag -> tag.getValue().contains("hot:")));
        held.release();
        waiting.join().release();
    }

    @Test
    void refusalsOfTheStoreAreCountedApartFromUnavailability() {
        LockBackend refusing = new LockBackend() {
            @Override
            public CompletableFuture<BackendLock> acquire(AcquireCommand command) {
                return CompletableFuture.failedFuture(new LockStoreAccessDeniedException("permission denied"));
            }

            @Override
            public CompletableFuture<Long> renew(BackendLock lock) {
                throw new UnsupportedOperationException();
            }

            @Override
            public CompletableFuture<Boolean> release(BackendLock lock) {
                throw new UnsupportedOperationException();
            }

            @Override
            public String describe() {
                return "refusing";
            }

            @Override
            public void close() {}
        };
        try (LockClient denied = LockClient.builder(refusing)
                .eventListener(new LockMetrics(this.registry))
                .build()) {
            assertThatThrownBy(() -> denied.acquire(LockRequest.of("secret")))
                    .isInstanceOf(LockStoreAccessDeniedException.class);
        }
        assertThat(this.registry
                        .get("fencelock.acquire")
                        .tags("lock", "unnamed", "outcome", "denied")
                        .timer()
                        .count())
                .isEqualTo(1);
    }

    @Test
    void lostLocksAreCountedAndAudited() {
        LockLease lease = this.client.acquire(LockRequest.builder("fragile")
                .leaseTtl(Duration.ofSeconds(1))
                .lockName("fragile")
                .build());
        ((InMemoryLockBackend) this.client.backend()).pauseRenewals();
        await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isValid());
        // The counter exists at zero from the acquisition on; the loss is counted off the detecting thread.
        await().atMost(Duration.ofSeconds(10))
                .until(() -> this.registry
                                .get("fencelock.lost")
                                .tag("lock", "fragile")
                                .counter()
                                .count()
                        == 1.0);
        assertThat(this.auditLines.list)
                .extracting(ILoggingEvent::getFormattedMessage)
                .anySatisfy(line -> assertThat(line)
                        .startsWith("event=acquire outcome=acquired resource=\"fragile\" lock=\"fragile\"")
                        .contains("token=" + lease.fencingToken())
                        .contains("instance=\"test-instance\""))
                .anySatisfy(line -> assertThat(line).startsWith("event=lost outcome=lost resource=\"fragile\""));
    }

    /**
     * 60 locked calls wrote 240 INFO lines: acquire and release are routine and go to DEBUG; what an
     * operator must see (a loss, a force-release, a rejected write) stays at INFO.
     */
    @Test
    void routineAuditLinesAreDebugAndLossesAreInfo() {
        LockLease lease = this.client.acquire(
                LockRequest.builder("order:7").lockName("order").build());
        lease.release();
        LockLease lost = this.client.acquire(
                LockRequest.builder("order:8").lockName("order").build());
        this.other.administration().orElseThrow().forceRelease(ResourceName.of("order:8", 255));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> this.auditLines.list.stream()
                        .anyMatch(event -> event.getFormattedMessage().startsWith("event=lost")));
        lost.release();

        assertThat(this.auditLines.list)
                .filteredOn(event -> event.getFormattedMessage().startsWith("event=acquire")
                        || event.getFormattedMessage().startsWith("event=release"))
                .hasSize(4)
                .allSatisfy(event -> assertThat(event.getLevel()).isEqualTo(Level.DEBUG));
        assertThat(this.auditLines.list)
                .filteredOn(event -> event.getFormattedMessage().startsWith("event=lost"))
                .singleElement()
                .satisfies(event -> assertThat(event.getLevel()).isEqualTo(Level.INFO));
    }

    /** A holder whose lock was force-released deletes nothing when it releases: that is not a release. */
    @Test
    void aStaleHoldersReleaseIsAuditedAsAlreadyGone() {
        LockLease lease = this.client.acquire(
                LockRequest.builder("order:9").lockName("order").build());
        this.other.administration().orElseThrow().forceRelease(ResourceName.of("order:9", 255));
        await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isValid());

        lease.release();

        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(this.auditLines.list)
                        .extracting(ILoggingEvent::getFormattedMessage)
                        .anySatisfy(line -> assertThat(line)
                                .startsWith("event=release outcome=already-gone resource=\"order:9\"")));
        assertThat(this.auditLines.list)
                .extracting(ILoggingEvent::getFormattedMessage)
                .noneMatch(line -> line.startsWith("event=release outcome=released resource=\"order:9\""));
    }
}
