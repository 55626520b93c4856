package dev.fencelock.docs;

import dev.fencelock.FencingContext;
import dev.fencelock.integration.FenceLockLeaderEventPublisher;
import dev.fencelock.integration.FenceLockRegistry;
import dev.fencelock.integration.FencedGrantedEvent;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/** docs/integrations.md, "Leader election": grants that carry the leader's fence. */
class FencedLeaderElectionSnippet {

    @Configuration(proxyBeanMethods = false)
    static class FencedLeaderConfiguration {

        private volatile FencingContext.@Nullable Fence fence;

        @Bean
        LockRegistryLeaderInitiator leaderInitiator(FenceLockRegistry registry, ApplicationEventPublisher events) {
            LockRegistryLeaderInitiator initiator =
                    new LockRegistryLeaderInitiator(registry, new DefaultCandidate("instance-1", "billing-leader"));
            initiator.setLeaderEventPublisher(new FenceLockLeaderEventPublisher(registry, events));
            return initiator;
        }

        @EventListener
        void onGranted(FencedGrantedEvent event) {
            this.fence = event.getFence();
        }

        FencingContext.@Nullable Fence fence() {
            return this.fence;
        }
    }
}
