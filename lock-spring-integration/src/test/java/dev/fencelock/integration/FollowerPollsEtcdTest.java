package dev.fencelock.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockEventListener;
import dev.fencelock.LockLease;
import dev.fencelock.ResourceName;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.fault.GrpcFaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A leader election's follower polls the leader lock every heartbeat with a short wait. Against an
 * etcd that is healthy but slow (answers that come after the poll's wait, as under CPU load), its
 * polls end without the lock; none of them may reach the listeners that metrics and the audit log
 * are, where they read as a store failing (the page alert on {@code unavailable|unknown}) or as a
 * line every heartbeat.
 */
class FollowerPollsEtcdTest {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private final List<String> failures = new CopyOnWriteArrayList<>();

    private final List<String> acquired = new CopyOnWriteArrayList<>();

    private final String role = "leader-" + UUID.randomUUID();

    private GrpcFaultProxy proxy;

    private LockClient leaderClient;

    private LockClient followerClient;

    @BeforeEach
    void startClients() {
        this.proxy = GrpcFaultProxy.forEndpoint(etcd.cluster().member(0).clientEndpoint());
        this.leaderClient = LockClient.builder(
                        EtcdLockBackend.builder().endpoints(etcd.endpoints()).build())
                .build();
        this.followerClient = LockClient.builder(EtcdLockBackend.builder()
                        .endpoints(this.proxy.endpoint())
                        .build())
                .eventListener(new LockEventListener() {
                    @Override
                    public void acquired(LockLease lease, String lockName, Duration waited, boolean reentered) {
                        FollowerPollsEtcdTest.this.acquired.add(lockName);
                    }

                    @Override
                    public void acquireFailed(
                            ResourceName resource, String lockName, Throwable cause, Duration waited, boolean queued) {
                        FollowerPollsEtcdTest.this.failures.add(lockName + ": " + cause);
                    }
                })
                .build();
    }

    @AfterEach
    void closeClients() {
        this.followerClient.close();
        this.leaderClient.close();
        this.proxy.close();
    }

    @Test
    void pollsOfABusyLeaderLockAgainstASlowEtcdReachNoListener() throws Exception {
        FencedLock leader = FenceLockRegistry.builder(this.leaderClient).build().obtain(this.role);
        FenceLockRegistry followerRegistry =
                FenceLockRegistry.builder(this.followerClient).build();
        leader.lock();
        try {
            FencedLock follower = followerRegistry.obtain(this.role);
            // A warm session first: the slow answers below are the polls', not the session's.
            assertThat(follower.tryLock(2, TimeUnit.SECONDS)).isFalse();
            this.failures.clear();
            // Each Txn's answer comes 800 ms after etcd gave it: later than the poll's 500 ms wait.
            this.proxy.delayResponses(GrpcFaultProxy.TXN, Integer.MAX_VALUE, Duration.ofMillis(800));
            int unanswered = 0;
            for (int poll = 0; poll < 3; poll++) {
                try {
                    assertThat(follower.tryLock(500, TimeUnit.MILLISECONDS)).isFalse();
                } catch (LockBackendUnavailableException late) {
                    // How a poll whose wait ran out before etcd answered ends; the initiator polls again.
                    unanswered++;
                }
            }
            this.proxy.delayResponses(GrpcFaultProxy.TXN, 0, Duration.ZERO);
            assertThat(unanswered)
                    .as("polls whose wait ran out before etcd answered")
                    .isPositive();
            assertThat(this.failures).as("poll endings told to the listeners").isEmpty();
        } finally {
            leader.unlock();
        }
        // Once the leader is gone, the follower's poll that gets the lock is told as any acquisition.
        FencedLock follower = followerRegistry.obtain(this.role);
        assertThat(follower.tryLock(5, TimeUnit.SECONDS)).isTrue();
        follower.unlock();
        assertThat(this.acquired).contains("spring-integration");
    }
}
