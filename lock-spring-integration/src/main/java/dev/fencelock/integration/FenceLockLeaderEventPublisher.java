package dev.fencelock.integration;

import dev.fencelock.FencingContext;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;

/**
 * Publishes leadership events for a {@code LockRegistryLeaderInitiator} on a {@link
 * FenceLockRegistry}, with a grant as a {@link FencedGrantedEvent} that carries the leader's fence.
 * Spring Integration's own grant event has no room for it. Set it with {@code
 * initiator.setLeaderEventPublisher(new FenceLockLeaderEventPublisher(registry, publisher))}.
 *
 * <p>The initiator publishes the grant on its own thread right after it took the lock, so the
 * lock is held when the fence is read. Should it be gone already (lost in that instant), the grant
 * is published as a plain {@code OnGrantedEvent}, and the revocation follows at the next heartbeat.
 */
public class FenceLockLeaderEventPublisher extends DefaultLeaderEventPublisher {

    private final FenceLockRegistry registry;

    private @Nullable ApplicationEventPublisher publisher;

    public FenceLockLeaderEventPublisher(FenceLockRegistry registry) {
        this.registry = registry;
    }

    public FenceLockLeaderEventPublisher(FenceLockRegistry registry, ApplicationEventPublisher publisher) {
        super(publisher);
        this.registry = registry;
        this.publisher = publisher;
    }

    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher applicationEventPublisher) {
        super.setApplicationEventPublisher(applicationEventPublisher);
        this.publisher = applicationEventPublisher;
    }

    @Override
    public void publishOnGranted(Object source, Context context, String role) {
        Optional<FencingContext.Fence> fence = this.registry.obtain(role).fence();
        ApplicationEventPublisher target = this.publisher;
        if (fence.isEmpty() || target == null) {
            super.publishOnGranted(source, context, role);
            return;
        }
        target.publishEvent(new FencedGrantedEvent(source, context, role, fence.get()));
    }
}
