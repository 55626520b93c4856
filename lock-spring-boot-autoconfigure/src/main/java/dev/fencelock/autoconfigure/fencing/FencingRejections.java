package dev.fencelock.autoconfigure.fencing;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockLease;
import dev.fencelock.audit.LockAuditLog;
import dev.fencelock.metrics.LockMetrics;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Reports writes refused for a stale fencing token: the {@code fencelock.fencing.rejected} counter
 * of the {@link LockMetrics} bean and a line of the {@link LockAuditLog} bean, each when the
 * application has one. Both name the lock the writing thread holds for the refused resource ({@link
 * LockLease#lockName()}); the audit line adds its lease and who refused the write.
 *
 * <p>The beans are looked up at each rejection rather than injected, because data sources are
 * wrapped early, long before Micrometer's registry exists.
 */
final class FencingRejections implements Consumer<FencingTokenRejectedException> {

    /**
     * The {@code lock} tag of the counter when the writing thread's fence for the resource carries
     * no lease (a fence pushed by hand): resources are unbounded, so they must not become tags.
     */
    static final String UNKNOWN_LOCK_NAME = "unknown";

    private static final boolean MICROMETER_PRESENT = ClassUtils.isPresent(
            "io.micrometer.core.instrument.MeterRegistry", FencingRejections.class.getClassLoader());

    private final BeanFactory beanFactory;

    FencingRejections(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public void accept(FencingTokenRejectedException rejection) {
        if (MICROMETER_PRESENT) {
            Metrics.count(this.beanFactory, rejection);
        }
        this.beanFactory.getBeanProvider(LockAuditLog.class).ifUnique((audit) -> {
            LockLease lease = lease(rejection);
            audit.fencingRejected(
                    rejection,
                    (lease != null) ? lease.lockName() : UNKNOWN_LOCK_NAME,
                    (lease != null) ? lease.leaseId() : 0);
        });
    }

    private static @Nullable LockLease lease(FencingTokenRejectedException rejection) {
        return FencingContext.forResource(rejection.getResource())
                .map(FencingContext.Fence::lease)
                .orElse(null);
    }

    /** The refusal happens on the writing thread, whose fence for the resource knows the lock. */
    static String lockName(FencingTokenRejectedException rejection) {
        return FencingContext.forResource(rejection.getResource())
                .map(FencingContext.Fence::lease)
                .map(LockLease::lockName)
                .orElse(UNKNOWN_LOCK_NAME);
    }

    /** Touches {@link LockMetrics} only when Micrometer is on the class path. */
    private static final class Metrics {

        static void count(BeanFactory beanFactory, FencingTokenRejectedException rejection) {
            beanFactory
                    .getBeanProvider(LockMetrics.class)
                    .ifUnique((metrics) -> metrics.fencingRejected(lockName(rejection), rejection));
        }
    }
}
