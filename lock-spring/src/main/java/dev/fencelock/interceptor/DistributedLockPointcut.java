package dev.fencelock.interceptor;

import dev.fencelock.annotation.DistributedLock;
import java.lang.reflect.Method;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * Matches the methods that {@link DistributedLockInterceptor} must lock: annotated with {@link
 * DistributedLock @DistributedLock} directly, through a composed annotation, or on a method of an
 * interface or superclass that the target class's method implements or overrides. This is the
 * same search that reads the annotation and that {@link DistributedLockMethodCheck} uses, so a
 * method the check accepts is a method the advisor locks.
 */
final class DistributedLockPointcut extends StaticMethodMatcherPointcut {

    DistributedLockPointcut() {
        setClassFilter((type) -> AnnotationUtils.isCandidateClass(type, DistributedLock.class));
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return isAnnotated(method) || isAnnotated(AopUtils.getMostSpecificMethod(method, targetClass));
    }

    /** Whether {@code method} carries the annotation, or inherits it from a method it overrides. */
    static boolean isAnnotated(Method method) {
        return AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class);
    }
}
