package dev.fencelock.interceptor;

import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.core.Ordered;

/**
 * Applies {@link DistributedLockInterceptor} to every {@link
 * dev.fencelock.annotation.DistributedLock @DistributedLock} method of a bean, through the
 * auto-proxy creator that also serves {@code @Transactional} and {@code @Async}, so no AspectJ
 * weaver is needed.
 *
 * <p>Its order must be smaller (higher precedence) than the transaction advisor's, so that the
 * lock is taken before a transaction begins and released after it ends.
 */
public class DistributedLockAdvisor extends AbstractPointcutAdvisor {

    /**
     * The order unless {@code fencelock.aspect.order} says otherwise: just ahead of Spring's
     * transaction advisor, which has the lowest precedence by default.
     */
    public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

    private final Pointcut pointcut = new DistributedLockPointcut();

    private final DistributedLockInterceptor interceptor;

    /**
     * Creates the advisor.
     *
     * @param interceptor the advice that runs matching methods under their lock
     * @param order the advisor's order among the advisors of a proxy
     */
    public DistributedLockAdvisor(DistributedLockInterceptor interceptor, int order) {
        this.interceptor = interceptor;
        setOrder(order);
    }

    @Override
    public Pointcut getPointcut() {
        return this.pointcut;
    }

    @Override
    public Advice getAdvice() {
        return this.interceptor;
    }
}
