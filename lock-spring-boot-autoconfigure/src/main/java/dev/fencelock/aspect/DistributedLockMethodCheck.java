package dev.fencelock.aspect;

import dev.fencelock.annotation.DistributedLock;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Checks every bean's {@link DistributedLock @DistributedLock} methods once all singletons exist,
 * and stops the application with one message listing every problem. Each of them would otherwise
 * show up later as a lock that is silently not taken or a request that fails:
 *
 * <ul>
 *   <li>reactive return types: the method returns before the publisher runs, so the lock would be
 *       released before the work starts;
 *   <li>private, final or static methods, and beans that are not proxied: the proxy cannot
 *       intercept them, so no lock is taken;
 *   <li>a broken annotation: name and key both or neither set, a key expression that does not
 *       parse or uses refused constructs, durations that do not parse or break the bounds.
 * </ul>
 *
 * <p>Calls from a bean to its own methods ({@code this.method()}) bypass the proxy too; that
 * cannot be seen here and is documented instead.
 */
public class DistributedLockMethodCheck implements SmartInitializingSingleton {

    private static final Set<String> REACTIVE_TYPES = Set.of(
            "org.reactivestreams.Publisher", "java.util.concurrent.Flow$Publisher", "kotlinx.coroutines.flow.Flow");

    private static final List<String> REACTIVE_PACKAGES =
            List.of("reactor.core.publisher.", "io.reactivex.", "io.smallrye.mutiny.");

    private final ConfigurableListableBeanFactory beanFactory;

    private final DistributedLockAspect aspect;

    public DistributedLockMethodCheck(ConfigurableListableBeanFactory beanFactory, DistributedLockAspect aspect) {
        this.beanFactory = beanFactory;
        this.aspect = aspect;
    }

    @Override
    public void afterSingletonsInstantiated() {
        Set<String> problems = new LinkedHashSet<>();
        for (String beanName : this.beanFactory.getBeanNamesForType(Object.class, true, false)) {
            check(beanName, problems);
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("Found " + problems.size() + " unusable @DistributedLock method(s):\n - "
                    + String.join("\n - ", problems));
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
        if (bean != null && !(bean instanceof FactoryBean) && !AopUtils.isAopProxy(bean)) {
            problems.add("Bean '" + beanName + "' (" + type.getName() + ") has @DistributedLock methods but is not"
                    + " proxied, so no lock would be taken. Make sure spring.aop.auto is not false, the class is"
                    + " not final, and the bean is not created before auto-proxying is set up.");
        }
        for (Method method : methods) {
            String problem = problem(method);
            if (problem != null) {
                problems.add(LockDefinition.describe(method) + " in bean '" + beanName + "': " + problem);
            }
        }
    }

    private static List<Method> annotatedMethods(Class<?> type) {
        List<Method> methods = new ArrayList<>();
        ReflectionUtils.doWithMethods(
                type,
                methods::add,
                (method) -> !method.isBridge()
                        && !method.isSynthetic()
                        && AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class));
        return methods;
    }

    private @Nullable String problem(Method method) {
        int modifiers = method.getModifiers();
        if (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
            return "@DistributedLock methods must not be private, static or final: the proxy cannot intercept"
                    + " them, so no lock would be taken. Make the method public (or protected) and not final.";
        }
        String reactive = reactiveType(method.getReturnType());
        if (reactive != null) {
            String returned = method.getReturnType().getName();
            return "returns " + returned + (returned.equals(reactive) ? "" : " (a " + reactive + ")")
                    + ", which the lock cannot"
                    + " cover: the method returns before the publisher runs, so the lock would be released before"
                    + " the work starts. Use LockClient.acquireAsync inside the pipeline, or return a"
                    + " CompletableFuture.";
        }
        try {
            this.aspect.definition(method);
            return null;
        } catch (RuntimeException ex) {
            return ex.getMessage();
        }
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
