package dev.fencelock.interceptor;

import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/** Matches when Spring's transaction support ({@code spring-tx}, an optional dependency) is on the class path. */
final class TransactionSupportCondition implements Condition {

    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
        return ClassUtils.isPresent(
                "org.springframework.transaction.ConfigurableTransactionManager", context.getClassLoader());
    }
}
