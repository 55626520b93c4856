package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockEventListener;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendEventListener;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A process frozen past its session's local deadline (SIGSTOP, a long GC) wakes up, and one of its
 * threads releases a lock before the backend's deadline task has run. Every lock on the session is
 * lost and counted together, the released one included: its loss reaches the listeners (the lost
 * counter, the audit line) instead of passing for a plain release.
 */
class SessionPastDeadlineTest {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    @Test
    void aReleaseAfterTheDeadlineLosesEveryLockOfTheSessionAndReportsTheReleasedOneLost() throws Exception {
        List<Integer> sessionsExpired = new CopyOnWriteArrayList<>();
        List<String> lost = new CopyOnWriteArrayList<>();
        EtcdLockBackend backend = EtcdLockBackend.builder()
                .endpoints(etcd.endpoints())
                .eventListener(new BackendEventListener() {
                    @Override
                    public void leaseExpired(int locks) {
                        sessionsExpired.add(locks);
                    }
                })
                .build();
        try (LockClient client = LockClient.builder(backend)
                .defaultLeaseTtl(Duration.ofSeconds(3))
                .callbackExecutor(Runnable::run)
                .eventListener(new LockEventListener() {
                    @Override
                    public void lost(LockLease lease, String lockName, LockLostException cause) {
                        lost.add(lockName);
                    }
                })
                .build()) {
            String prefix = "frozen-" + UUID.randomUUID() + ":";
            LockLease leader = client.acquire(
                    LockRequest.builder(prefix + "leader").lockName("leader").build());
            // A second lock on the same session (same TTL), held by the backend directly so that the
            // test can reach the session.
            EtcdLock other = (EtcdLock) backend.acquire(new AcquireCommand(
                            ResourceName.of(prefix + "other", 255),
                            "other",
                            3,
                            false,
                            System.nanoTime() + TimeUnit.SECONDS.toNanos(5),
                            false))
                    .get(10, TimeUnit.SECONDS);
            SessionLease session = other.session;
            assertThat(leader.leaseId()).isEqualTo(session.leaseId);
            assertThat(leader.isValid()).isTrue();
            sessionsExpired.clear();

            // Frozen: no keep-alive is sent, and the deadline task has not run when the holder wakes.
            cancel(session.keepAliveTask);
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> {
                        cancel(session.deadlineTask); // a keep-alive answered after the freeze schedules it again
                        return session.validFor().isNegative();
                    });
            // Checked within the lease's safety margin (300 ms), before etcd itself can expire it.
            assertThat(sessionsExpired).as("expired before the release").isEmpty();
            assertThat(other.isLost()).as("lost before the release").isFalse();

            assertThat(leader.release()).as("released while valid").isFalse();

            assertThat(lost).as("losses told to the client's listeners").containsExactly("leader");
            assertThat(sessionsExpired)
                    .as("locks counted with the expired session")
                    .containsExactly(2);
            assertThat(other.isLost()).isTrue();
        }
    }

    private static void cancel(ScheduledFuture<?> task) {
        if (task != null) {
            task.cancel(false);
        }
    }
}
