package dev.fencelock.docs;

import dev.fencelock.FencingContext;
import dev.fencelock.integration.FenceLockRegistry;
import org.jspecify.annotations.Nullable;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/** docs/integrations.md, "Leader election". */
class LeaderElectionSnippet {

    @Configuration(proxyBeanMethods = false)
    static class LeaderElectionConfiguration {

        @Bean
        LockRegistryLeaderInitiator leaderInitiator(FenceLockRegistry registry) {
            // The role is the lock key: one leader per role among all instances on the same etcd.
            return new LockRegistryLeaderInitiator(registry, new DefaultCandidate("instance-1", "billing-leader"));
        }
    }

    static class BillingLeader {

        private final FenceLockRegistry registry;

        private final JdbcTemplate jdbc;

        private final TransactionTemplate transactions;

        private volatile FencingContext.@Nullable Fence fence;

        BillingLeader(FenceLockRegistry registry, JdbcTemplate jdbc, TransactionTemplate transactions) {
            this.registry = registry;
            this.jdbc = jdbc;
            this.transactions = transactions;
        }

        @EventListener
        void onGranted(OnGrantedEvent event) {
            // The leader's token: a new leader's is larger than every earlier leader's.
            this.fence = this.registry.obtain(event.getRole()).fence().orElseThrow();
        }

        @EventListener
        void onRevoked(OnRevokedEvent event) {
            this.fence = null;
        }

        void sendDueInvoices() {
            FencingContext.Fence leader = this.fence;
            if (leader == null || !leader.isValid()) {
                return; // not the leader (any more)
            }
            try (FencingContext.Scope scope = FencingContext.push(leader)) {
                // A former leader that wakes up after a pause is refused here, by the fence table.
                this.transactions.executeWithoutResult(
                        status -> this.jdbc.update("UPDATE invoice SET state = 'sent' WHERE state = 'due'"));
            }
        }

        FencingContext.@Nullable Fence fence() {
            return this.fence;
        }
    }
}
