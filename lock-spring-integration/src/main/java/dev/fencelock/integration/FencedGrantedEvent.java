package dev.fencelock.integration;

import dev.fencelock.FencingContext;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.OnGrantedEvent;

/**
 * Leadership granted, with the fence of the lock that grants it: listeners of {@link
 * OnGrantedEvent} receive it too. A new leader's token is larger than every earlier leader's of
 * the role, so writes that present it are refused once a later leader has written.
 */
public class FencedGrantedEvent extends OnGrantedEvent {

    private final transient FencingContext.Fence fence;

    public FencedGrantedEvent(Object source, Context context, String role, FencingContext.Fence fence) {
        super(source, context, role);
        this.fence = fence;
    }

    /** The leader's fence, to push on the threads that do the leader's work. */
    public FencingContext.Fence getFence() {
        return this.fence;
    }

    /** The leader's fencing token. */
    public long getFencingToken() {
        return this.fence.token();
    }
}
