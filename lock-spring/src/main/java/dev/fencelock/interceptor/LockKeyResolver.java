package dev.fencelock.interceptor;

import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * Turns the {@code key} expression of a {@link dev.fencelock.annotation.DistributedLock
 * &#64;DistributedLock} method into the name of the resource to lock. Define a bean of this type to
 * replace the restricted SpEL evaluation of {@link SpelLockKeyResolver}.
 */
public interface LockKeyResolver {

    /**
     * Evaluates {@code expression} for one call.
     *
     * @param expression the annotation's {@code key}
     * @param method the annotated method
     * @param arguments the call's arguments
     * @return the resource name, never empty
     * @throws dev.fencelock.InvalidLockKeyException naming the expression and the method when it
     *     cannot be evaluated to a usable name
     */
    String resolve(String expression, Method method, @Nullable Object[] arguments);

    /**
     * Checks {@code expression} at startup, before any call, so that a broken key stops the
     * application instead of failing the first request.
     *
     * @throws dev.fencelock.InvalidLockKeyException when the expression can never work
     */
    default void validate(String expression, Method method) {}
}
