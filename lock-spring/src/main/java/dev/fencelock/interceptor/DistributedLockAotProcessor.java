package dev.fencelock.interceptor;

import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.annotation.LockNotAcquiredPolicy;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Runtime hints for the {@code @DistributedLock} methods of each bean, for a native image: what
 * the interceptor reads at run time by reflection. That is the annotation and its attributes, each
 * annotated method (the key expression names its parameters, so their names must survive), and
 * the public methods and fields of its parameter types, which a key expression such as {@code
 * #order.id()} calls. Types reached further inside a parameter need the application's own hints
 * ({@code @RegisterReflectionForBinding}).
 */
class DistributedLockAotProcessor implements BeanRegistrationAotProcessor {

    @Override
    public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        Class<?> type = ClassUtils.getUserClass(registeredBean.getBeanClass());
        if (type.getName().startsWith("org.springframework.")) {
            return null;
        }
        List<Method> methods = new ArrayList<>();
        ReflectionUtils.doWithMethods(
                type,
                methods::add,
                (method) -> !method.isBridge() && !method.isSynthetic() && DistributedLockPointcut.isAnnotated(method));
        if (methods.isEmpty()) {
            return null;
        }
        return (generationContext, code) -> registerHints(generationContext.getRuntimeHints(), methods);
    }

    static void registerHints(RuntimeHints hints, List<Method> methods) {
        ReflectionHints reflection = hints.reflection();
        reflection.registerType(DistributedLock.class, MemberCategory.INVOKE_DECLARED_METHODS);
        reflection.registerType(LockNotAcquiredPolicy.class, MemberCategory.ACCESS_PUBLIC_FIELDS);
        for (Method method : methods) {
            reflection.registerMethod(method, ExecutableMode.INVOKE);
            for (Class<?> parameter : method.getParameterTypes()) {
                Class<?> type = parameter.isArray() ? parameter.getComponentType() : parameter;
                if (!type.isPrimitive() && !type.getName().startsWith("java.")) {
                    reflection.registerType(
                            type, MemberCategory.INVOKE_PUBLIC_METHODS, MemberCategory.ACCESS_PUBLIC_FIELDS);
                }
            }
        }
    }
}
