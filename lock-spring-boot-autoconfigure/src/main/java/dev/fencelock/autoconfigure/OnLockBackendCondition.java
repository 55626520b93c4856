package dev.fencelock.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches the configured {@code fencelock.backend}. It binds the value like the properties do, so
 * {@code in-memory}, {@code IN_MEMORY} and {@code in_memory} all select the same backend.
 */
public abstract class OnLockBackendCondition extends SpringBootCondition {

    private final FenceLockProperties.Backend backend;

    OnLockBackendCondition(FenceLockProperties.Backend backend) {
        this.backend = backend;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        FenceLockProperties.Backend configured = Binder.get(context.getEnvironment())
                .bind("fencelock.backend", FenceLockProperties.Backend.class)
                .orElse(FenceLockProperties.Backend.ETCD);
        String message = "fencelock.backend is " + configured;
        return (configured == this.backend) ? ConditionOutcome.match(message) : ConditionOutcome.noMatch(message);
    }

    /** Matches {@code fencelock.backend=etcd}, the default. */
    public static final class Etcd extends OnLockBackendCondition {

        public Etcd() {
            super(FenceLockProperties.Backend.ETCD);
        }
    }

    /** Matches {@code fencelock.backend=in-memory}. */
    public static final class InMemory extends OnLockBackendCondition {

        public InMemory() {
            super(FenceLockProperties.Backend.IN_MEMORY);
        }
    }

    /** Matches {@code fencelock.backend=redis}. */
    public static final class Redis extends OnLockBackendCondition {

        public Redis() {
            super(FenceLockProperties.Backend.REDIS);
        }
    }

    /** Matches {@code fencelock.backend=zookeeper}. */
    public static final class ZooKeeper extends OnLockBackendCondition {

        public ZooKeeper() {
            super(FenceLockProperties.Backend.ZOOKEEPER);
        }
    }
}
