package dev.fencelock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.memory.InMemoryLockStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Spring Integration's LockRegistryLeaderInitiator on FenceLockRegistry, with no election code of
 * FenceLock's own: one leader per role, a leader whose lease runs out is revoked, and every new
 * leader's token is larger than the last one's. Two clients on one in-memory store play two
 * instances.
 */
class LeaderElectionTest {

    private final InMemoryLockStore store = new InMemoryLockStore();

    private final List<AutoCloseable> closeables = new ArrayList<>();

    private final String role = "leader-" + UUID.randomUUID();

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = this.closeables.size() - 1; i >= 0; i--) {
            this.closeables.get(i).close();
        }
        this.store.close();
    }

    @Test
    void oneInstanceLeadsAndTheOtherTakesOverWithALargerTokenWhenTheLeaderFallsSilent() throws Exception {
        Instance first = instance("first");
        first.initiator.start();
        long firstToken = first.events.awaitGranted();

        Instance second = instance("second");
        second.initiator.start();
        await().during(Duration.ofMillis(1500))
                .atMost(Duration.ofSeconds(10))
                .until(() -> !second.initiator.getContext().isLeader());

        ((InMemoryLockBackend) first.client.backend()).pauseRenewals();

        long secondToken = second.events.awaitGranted();
        assertThat(secondToken).isGreaterThan(firstToken);
        assertThat(first.events.awaitRevoked()).isTrue();
        assertThat(first.initiator.getContext().isLeader()).isFalse();
    }

    @Test
    void aRevokedLeaderLeadsAgainWithANewTokenOnceTheOtherStops() throws Exception {
        Instance first = instance("first");
        first.initiator.start();
        long firstToken = first.events.awaitGranted();
        Instance second = instance("second");
        second.initiator.start();

        InMemoryLockBackend firstBackend = (InMemoryLockBackend) first.client.backend();
        firstBackend.pauseRenewals();
        long secondToken = second.events.awaitGranted();
        assertThat(first.events.awaitRevoked()).isTrue();
        firstBackend.resumeRenewals();

        second.initiator.stop();
        assertThat(second.events.awaitRevoked()).isTrue();
        long thirdToken = first.events.awaitGranted();
        assertThat(thirdToken).isGreaterThan(secondToken).isGreaterThan(firstToken);
    }

    @Test
    void yieldingHandsLeadershipToTheOther() throws Exception {
        Instance first = instance("first");
        first.initiator.start();
        long firstToken = first.events.awaitGranted();
        Instance second = instance("second");
        second.initiator.start();

        first.initiator.getContext().yield();

        assertThat(first.events.awaitRevoked()).isTrue();
        assertThat(second.events.awaitGranted()).isGreaterThan(firstToken);
    }

    private Instance instance(String id) {
        LockClient client =
                LockClient.builder(InMemoryLockBackend.sharing(this.store)).build();
        this.closeables.add(client);
        // Renewed every second, valid for 3: a loaded machine's late renewal does not hand leadership over.
        FenceLockRegistry registry = FenceLockRegistry.builder(client)
                .leaseTtl(Duration.ofSeconds(3))
                .build();
        LockRegistryLeaderInitiator initiator =
                new LockRegistryLeaderInitiator(registry, new DefaultCandidate(id, this.role));
        initiator.setHeartBeatMillis(200);
        initiator.setBusyWaitMillis(50);
        LeaderEvents events = new LeaderEvents(registry);
        initiator.setLeaderEventPublisher(events);
        this.closeables.add(initiator::stop);
        return new Instance(client, initiator, events);
    }

    private record Instance(LockClient client, LockRegistryLeaderInitiator initiator, LeaderEvents events) {}

    /** Records leadership events, reading the leader's token from the registry as an application would. */
    private static final class LeaderEvents implements LeaderEventPublisher {

        private final FenceLockRegistry registry;

        private final BlockingQueue<Long> granted = new LinkedBlockingQueue<>();

        private final BlockingQueue<Boolean> revoked = new LinkedBlockingQueue<>();

        LeaderEvents(FenceLockRegistry registry) {
            this.registry = registry;
        }

        @Override
        public void publishOnGranted(Object source, Context context, String role) {
            this.granted.add(this.registry.obtain(role).fencingToken());
        }

        @Override
        public void publishOnRevoked(Object source, Context context, String role) {
            this.revoked.add(true);
        }

        @Override
        public void publishOnFailedToAcquire(Object source, Context context, String role) {}

        long awaitGranted() throws InterruptedException {
            Long token = this.granted.poll(15, TimeUnit.SECONDS);
            assertThat(token).as("leadership granted").isNotNull();
            return token;
        }

        boolean awaitRevoked() throws InterruptedException {
            return Boolean.TRUE.equals(this.revoked.poll(15, TimeUnit.SECONDS));
        }
    }
}
