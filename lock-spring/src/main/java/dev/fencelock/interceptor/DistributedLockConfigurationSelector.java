package dev.fencelock.interceptor;

import org.springframework.context.annotation.DeferredImportSelector;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Imports {@link DistributedLockAdvisorConfiguration} after the application's own configuration
 * classes, as Spring Boot imports auto-configurations, so that {@link MissingBeanCondition} sees
 * the beans that replace FenceLock's.
 */
final class DistributedLockConfigurationSelector implements DeferredImportSelector {

    @Override
    public String[] selectImports(AnnotationMetadata importingClassMetadata) {
        return new String[] {DistributedLockAdvisorConfiguration.class.getName()};
    }
}
