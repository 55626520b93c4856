package dev.fencelock.interceptor;

import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.core.type.MethodMetadata;
import org.springframework.util.ClassUtils;

/**
 * Matches a {@code @Bean} method when no bean of its return type is defined yet, in this context
 * or an ancestor: an application's own key resolver, interceptor, advisor or method check replaces
 * FenceLock's, with or without Spring Boot. It sees the application's beans because {@link
 * DistributedLockAdvisorConfiguration} is processed after them (a deferred import, or Boot's
 * auto-configuration).
 */
final class MissingBeanCondition implements ConfigurationCondition {

    @Override
    public ConfigurationPhase getConfigurationPhase() {
        return ConfigurationPhase.REGISTER_BEAN;
    }

    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
        if (!(metadata instanceof MethodMetadata method)) {
            throw new IllegalStateException("MissingBeanCondition applies to @Bean methods only, not to " + metadata);
        }
        ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
        if (beanFactory == null) {
            return true;
        }
        Class<?> type = ClassUtils.resolveClassName(method.getReturnTypeName(), context.getClassLoader());
        return BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory, type, true, false).length == 0;
    }
}
