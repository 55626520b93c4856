package dev.fencelock.interceptor;

import dev.fencelock.annotation.DistributedLock;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Advisor;
import org.springframework.aop.TargetSource;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodParameter;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Checks every bean's {@link DistributedLock @DistributedLock} methods once all singletons exist,
 * and stops the application with an {@link UnusableDistributedLockMethodsException} listing every
 * problem. Each of them would otherwise show up later as a lock that is silently not taken or a
 * request that fails:
 *
 * <ul>
 *   <li>reactive return types other than Reactor's {@code Mono} and {@code Flux} (which {@link
 *       ReactiveLockCall} locks for each subscription): the method returns before the publisher
 *       runs, so the lock would be released before the work starts;
 *   <li>Kotlin {@code suspend} functions without lock-kotlin, for the same reason: they return at their
 *       first suspension; and suspend functions that return a Kotlin {@code Flow};
 *   <li>private, final or static methods, beans that are not proxied, and proxies that do not
 *       apply the {@link DistributedLockAdvisor} (built before it existed, or by hand): no lock
 *       would be taken;
 *   <li>a broken annotation: not exactly one of name, key and keys set, a semaphore in shared
 *       mode, a key expression that does not parse or uses refused constructs, durations that do
 *       not parse or break the bounds.
 * </ul>
 *
 * <p>Calls from a bean to its own methods ({@code this.method()}) bypass the proxy too; that
 * cannot be seen here and is documented instead.
 */
public class DistributedLockMethodCheck implements SmartInitializingSingleton {

    private static final Set<String> REACTIVE_TYPES = Set.of(
            "org.reactivestreams.Publisher", "java.util.concurrent.Flow$Publisher", "kotlinx.coroutines.flow.Flow");

    private static final String KOTLIN_FLOW = "kotlinx.coroutines.flow.Flow";

    /** What Spring's proxy runs a {@code suspend} function with, as a {@code Mono}. */
    private static final String COROUTINES_REACTOR = "kotlinx.coroutines.reactor.MonoKt";

    private static final String KOTLIN_REFLECT = "kotlin.reflect.full.KClasses";

    private static final List<String> REACTIVE_PACKAGES =
            List.of("reactor.core.publisher.", "io.reactivex.", "io.smallrye.mutiny.");

    private final ConfigurableListableBeanFactory beanFactory;

    private final DistributedLockInterceptor interceptor;

    public DistributedLockMethodCheck(
            ConfigurableListableBeanFactory beanFactory, DistributedLockInterceptor interceptor) {
        this.beanFactory = beanFactory;
        this.interceptor = interceptor;
    }

    @Override
    public void afterSingletonsInstantiated() {
        Set<String> problems = new LinkedHashSet<>();
        for (String beanName : this.beanFactory.getBeanNamesForType(Object.class, true, false)) {
            check(beanName, problems);
        }
        if (!problems.isEmpty()) {
            throw new UnusableDistributedLockMethodsException(List.copyOf(problems));
        }
    }

    private void check(String beanName, Set<String> problems) {
        Object bean = this.beanFactory.containsSingleton(beanName) ? this.beanFactory.getSingleton(beanName) : null;
        Class<?> type = (bean != null && !(bean instanceof FactoryBean))
                ? AopUtils.getTargetClass(bean)
                : this.beanFactory.getType(beanName, false);
        if (type == null || type.getName().startsWith("org.springframework.")) {
            return;
        }
        List<Method> methods = annotatedMethods(ClassUtils.getUserClass(type));
        if (methods.isEmpty()) {
            return;
        }
        if (bean != null && !(bean instanceof FactoryBean)) {
            String problem = proxyProblem(bean);
            if (problem != null) {
                problems.add(
                        "Bean '" + beanName + "' (" + type.getName() + ") has @DistributedLock methods but " + problem);
            }
        }
        for (Method method : methods) {
            String problem = problem(method);
            if (problem != null) {
                problems.add(LockDefinition.describe(method) + " in bean '" + beanName + "': " + problem);
            }
        }
    }

    /** Why calls through {@code bean} would not be locked, or {@code null} when they would be. */
    private static @Nullable String proxyProblem(Object bean) {
        if (!AopUtils.isAopProxy(bean)) {
            return "is not proxied, so no lock would be taken. It was registered as a ready-made instance, its"
                    + " class is final, or it was created before auto-proxying was set up (for example as a"
                    + " dependency of a BeanPostProcessor or BeanFactoryPostProcessor).";
        }
        if (!(bean instanceof Advised)) {
            return "is an opaque proxy, so FenceLock cannot see whether it applies the lock advice. Do not make"
                    + " proxies of beans with @DistributedLock methods opaque.";
        }
        Object current = bean;
        while (current instanceof Advised advised) {
            if (appliesLockAdvice(advised)) {
                return null;
            }
            current = staticTarget(advised);
        }
        return "is proxied without the @DistributedLock advice, so no lock would be taken. The proxy was built"
                + " before the advice existed (for example while a bean the advisor needs was being created, or"
                + " by a BeanPostProcessor that runs before auto-proxying) or by hand without the advisor.";
    }

    private static boolean appliesLockAdvice(Advised advised) {
        for (Advisor advisor : advised.getAdvisors()) {
            if (advisor instanceof DistributedLockAdvisor
                    || advisor.getAdvice() instanceof DistributedLockInterceptor) {
                return true;
            }
        }
        return false;
    }

    /** The proxy's target when it is fixed (a proxy of a proxy), otherwise {@code null}. */
    private static @Nullable Object staticTarget(Advised advised) {
        TargetSource targetSource = advised.getTargetSource();
        if (!targetSource.isStatic()) {
            return null;
        }
        try {
            return targetSource.getTarget();
        } catch (Exception ex) {
            return null;
        }
    }

    private static List<Method> annotatedMethods(Class<?> type) {
        List<Method> methods = new ArrayList<>();
        ReflectionUtils.doWithMethods(
                type,
                methods::add,
                (method) -> !method.isBridge() && !method.isSynthetic() && DistributedLockPointcut.isAnnotated(method));
        return methods;
    }

    private @Nullable String problem(Method method) {
        int modifiers = method.getModifiers();
        if (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
            // A private method is called from its own class; making it public alone would leave that call unlocked.
            String callers = Modifier.isPrivate(modifiers)
                    ? " A private method is called from its own class (this." + method.getName() + "(...)), and such"
                            + " a call never passes the proxy: making the method public is not enough. Move it to"
                            + " another bean and call it through that bean (or call it through this bean's own"
                            + " injected proxy)."
                    : " Make it an instance method that is not final, and call it through another bean: a call"
                            + " through this (this." + method.getName() + "(...)) is not locked either.";
            return "@DistributedLock methods must not be private, static or final: the proxy cannot intercept"
                    + " them, so no lock would be taken." + callers;
        }
        if (LockDefinition.isSuspendFunction(method)) {
            String problem = suspendProblem(method);
            if (problem != null) {
                return problem;
            }
        }
        String reactive = LockDefinition.isLockablePublisher(method.getReturnType())
                ? null
                : reactiveType(method.getReturnType());
        if (reactive != null) {
            String returned = method.getReturnType().getName();
            return "returns " + returned + (returned.equals(reactive) ? "" : " (a " + reactive + ")")
                    + ", which the lock cannot"
                    + " cover: the method returns before the publisher runs, so the lock would be released before"
                    + " the work starts. Declare the method to return a Mono or a Flux (locked for each"
                    + " subscription), use LockClient.acquireAsync inside the pipeline, or return a"
                    + " CompletableFuture.";
        }
        try {
            this.interceptor.definition(method);
            return null;
        } catch (RuntimeException ex) {
            return ex.getMessage();
        }
    }

    /**
     * Why a suspend function cannot be locked, or {@code null}. Spring's proxy runs it as a {@code
     * Mono} only with kotlinx-coroutines-reactor; lock-kotlin carries the fences into its coroutine.
     */
    private static @Nullable String suspendProblem(Method method) {
        ClassLoader classLoader = DistributedLockMethodCheck.class.getClassLoader();
        if (!ClassUtils.isPresent(COROUTINES_REACTOR, classLoader)
                || !ClassUtils.isPresent(KOTLIN_REFLECT, classLoader)
                || SuspendingCallContext.find().isEmpty()) {
            return "is a Kotlin suspend function, and the module dev.fencelock:lock-kotlin (which brings"
                    + " kotlinx-coroutines-reactor and kotlin-reflect) is not on the class path. Without it the"
                    + " function returns to the proxy at its first suspension point, while its work goes on, so"
                    + " the lock would be released before the work is done. Add lock-kotlin, or take the lock"
                    + " inside the coroutine with LockClient.withLock from lock-kotlin.";
        }
        if (new MethodParameter(method, -1).getParameterType().getName().equals(KOTLIN_FLOW)) {
            return "is a suspend function that returns a Kotlin Flow, which the lock cannot cover: the Flow is"
                    + " collected after the function has returned, so the lock would be released before the"
                    + " work starts. Return the collected result (a List, for example), or take the lock inside"
                    + " the flow with LockClient.withLock from lock-kotlin.";
        }
        return null;
    }

    private static @Nullable String reactiveType(@Nullable Class<?> type) {
        if (type == null || type == Object.class) {
            return null;
        }
        String name = reactiveName(type);
        if (name != null) {
            return name;
        }
        for (Class<?> implemented : type.getInterfaces()) {
            name = reactiveType(implemented);
            if (name != null) {
                return name;
            }
        }
        return reactiveType(type.getSuperclass());
    }

    private static @Nullable String reactiveName(Class<?> type) {
        String name = type.getName();
        if (REACTIVE_TYPES.contains(name)) {
            return name;
        }
        for (String prefix : REACTIVE_PACKAGES) {
            if (name.startsWith(prefix)) {
                return name;
            }
        }
        return null;
    }
}
