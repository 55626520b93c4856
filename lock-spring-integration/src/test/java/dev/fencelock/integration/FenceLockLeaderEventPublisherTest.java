package dev.fencelock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.memory.InMemoryLockStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/** Grants published by FenceLockLeaderEventPublisher carry the leader's fence, and each new leader's is larger. */
class FenceLockLeaderEventPublisherTest {

    @Test
    void everyGrantCarriesTheLeadersFenceAndANewLeadersTokenIsLarger() throws Exception {
        InMemoryLockStore store = new InMemoryLockStore();
        List<Object> events = new CopyOnWriteArrayList<>();
        try (LockClient firstClient =
                        LockClient.builder(InMemoryLockBackend.sharing(store)).build();
                LockClient secondClient =
                        LockClient.builder(InMemoryLockBackend.sharing(store)).build()) {
            FenceLockRegistry firstRegistry = FenceLockRegistry.builder(firstClient)
                    .leaseTtl(Duration.ofSeconds(1))
                    .build();
            FenceLockRegistry secondRegistry = FenceLockRegistry.builder(secondClient)
                    .leaseTtl(Duration.ofSeconds(1))
                    .build();
            LockRegistryLeaderInitiator first = initiator(firstRegistry, "first", events);
            LockRegistryLeaderInitiator second = initiator(secondRegistry, "second", events);
            try {
                first.start();
                FencedGrantedEvent firstGrant = await().atMost(Duration.ofSeconds(10))
                        .until(() -> grants(events), grants -> grants.size() == 1)
                        .get(0);
                assertThat(firstGrant).isInstanceOf(OnGrantedEvent.class);
                assertThat(firstGrant.getRole()).isEqualTo("billing-leader");
                assertThat(firstGrant.getFence().isValid()).isTrue();
                assertThat(firstGrant.getFencingToken())
                        .isEqualTo(firstRegistry.obtain("billing-leader").fencingToken());

                second.start();
                first.stop();

                FencedGrantedEvent secondGrant = await().atMost(Duration.ofSeconds(10))
                        .until(() -> grants(events), grants -> grants.size() == 2)
                        .get(1);
                assertThat(secondGrant.getContext().isLeader()).isTrue();
                assertThat(secondGrant.getFencingToken()).isGreaterThan(firstGrant.getFencingToken());
                assertThat(firstGrant.getFence().isValid()).isFalse();
            } finally {
                second.stop();
                first.stop();
            }
        } finally {
            store.close();
        }
    }

    private static LockRegistryLeaderInitiator initiator(FenceLockRegistry registry, String id, List<Object> events) {
        LockRegistryLeaderInitiator initiator =
                new LockRegistryLeaderInitiator(registry, new DefaultCandidate(id, "billing-leader"));
        initiator.setHeartBeatMillis(200);
        initiator.setBusyWaitMillis(50);
        initiator.setLeaderEventPublisher(new FenceLockLeaderEventPublisher(registry, events::add));
        return initiator;
    }

    private static List<FencedGrantedEvent> grants(List<Object> events) {
        return events.stream()
                .filter(FencedGrantedEvent.class::isInstance)
                .map(FencedGrantedEvent.class::cast)
                .toList();
    }
}
