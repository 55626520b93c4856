package dev.fencelock.interceptor;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.transaction.ConfigurableTransactionManager;

/**
 * Adds the {@link CallTransactionListener} to every transaction manager bean, the ones the
 * application defines itself included, so that a {@code @DistributedLock} call learns how its
 * transactions ended whichever manager runs them. Transaction managers created outside the
 * context (by hand, inside a bean) are not seen.
 */
final class CallTransactionListenerPostProcessor implements BeanPostProcessor {

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof ConfigurableTransactionManager transactionManager) {
            CallTransactionListener.addTo(transactionManager);
        }
        return bean;
    }
}
