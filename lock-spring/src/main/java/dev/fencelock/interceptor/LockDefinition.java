package dev.fencelock.interceptor;

import dev.fencelock.LockClientSettings;
import dev.fencelock.LockMode;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.annotation.LockNotAcquiredPolicy;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.core.env.PropertyResolver;
import org.springframework.util.StringUtils;

/**
 * What one {@link DistributedLock @DistributedLock} method asks for, read and checked once: the
 * fixed name or key expression, the resolved durations and the not-acquired policy.
 */
final class LockDefinition {

    private static final Map<Class<?>, Object> PRIMITIVE_ZEROS = Map.of(
            byte.class,
            (byte) 0,
            short.class,
            (short) 0,
            int.class,
            0,
            long.class,
            0L,
            float.class,
            0f,
            double.class,
            0d,
            char.class,
            '\0');

    private final Method method;

    private final @Nullable String name;

    private final @Nullable String keyExpression;

    /** The expressions of {@code keys}; empty unless the method takes several locks. */
    private final List<String> keyExpressions;

    private final LockMode mode;

    private final int permits;

    private final @Nullable Duration waitTimeout;

    private final @Nullable Duration leaseTtl;

    private final LockNotAcquiredPolicy policy;

    private LockDefinition(
            Method method,
            @Nullable String name,
            @Nullable String keyExpression,
            List<String> keyExpressions,
            LockMode mode,
            int permits,
            @Nullable Duration waitTimeout,
            @Nullable Duration leaseTtl,
            LockNotAcquiredPolicy policy) {
        this.method = method;
        this.name = name;
        this.keyExpression = keyExpression;
        this.keyExpressions = keyExpressions;
        this.mode = mode;
        this.permits = permits;
        this.waitTimeout = waitTimeout;
        this.leaseTtl = leaseTtl;
        this.policy = policy;
    }

    /**
     * Reads and checks the annotation of {@code method}.
     *
     * @throws IllegalStateException naming the method and the attribute when the annotation is
     *     unusable
     */
    static LockDefinition of(
            Method method,
            DistributedLock annotation,
            PropertyResolver placeholders,
            LockClientSettings bounds,
            LockKeyResolver keyResolver) {
        boolean hasName = StringUtils.hasLength(annotation.name());
        boolean hasKey = StringUtils.hasLength(annotation.key());
        boolean hasKeys = annotation.keys().length > 0;
        int set = (hasName ? 1 : 0) + (hasKey ? 1 : 0) + (hasKeys ? 1 : 0);
        if (set != 1) {
            throw new IllegalStateException("@DistributedLock on " + describe(method) + " must set exactly one of"
                    + " name (a fixed lock name), key (a SpEL expression) and keys (several), but sets "
                    + switch (set) {
                        case 0 -> "none";
                        case 2 -> "both " + (hasName ? "name" : "key") + " and " + (hasKeys ? "keys" : "key");
                        default -> "all three";
                    });
        }
        if (hasKey) {
            keyResolver.validate(annotation.key(), method);
        }
        for (String expression : annotation.keys()) {
            if (!StringUtils.hasText(expression)) {
                throw new IllegalStateException(
                        "@DistributedLock(keys) of " + describe(method) + " has an empty expression");
            }
            keyResolver.validate(expression, method);
        }
        if (annotation.permits() < 1) {
            throw new IllegalStateException("@DistributedLock(permits) of " + describe(method) + " is "
                    + annotation.permits() + "; use 1 for a lock, more for a semaphore");
        }
        if (annotation.permits() > 1 && annotation.mode() == LockMode.SHARED) {
            throw new IllegalStateException("@DistributedLock on " + describe(method) + " sets permits = "
                    + annotation.permits() + " and mode = SHARED; a semaphore's permits have no mode, use one or"
                    + " the other");
        }
        Duration waitTimeout = duration(method, "waitTimeout", annotation.waitTimeout(), placeholders);
        Duration leaseTtl = duration(method, "leaseTtl", annotation.leaseTtl(), placeholders);
        if (waitTimeout != null && waitTimeout.compareTo(bounds.maxWaitTimeout()) > 0) {
            throw new IllegalStateException("@DistributedLock(waitTimeout) of " + describe(method) + " is "
                    + waitTimeout + ", above fencelock.max-wait-timeout (" + bounds.maxWaitTimeout() + ")");
        }
        if (leaseTtl != null && leaseTtl.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalStateException("@DistributedLock(leaseTtl) of " + describe(method) + " is " + leaseTtl
                    + "; etcd leases are whole seconds, use at least 1s");
        }
        if (leaseTtl != null && leaseTtl.compareTo(bounds.maxLeaseTtl()) > 0) {
            throw new IllegalStateException("@DistributedLock(leaseTtl) of " + describe(method) + " is " + leaseTtl
                    + ", above fencelock.max-lease-ttl (" + bounds.maxLeaseTtl() + ")");
        }
        return new LockDefinition(
                method,
                hasName ? annotation.name() : null,
                hasKey ? annotation.key() : null,
                List.of(annotation.keys()),
                annotation.mode(),
                annotation.permits(),
                waitTimeout,
                leaseTtl,
                annotation.onNotAcquired());
    }

    private static @Nullable Duration duration(
            Method method, String attribute, String value, PropertyResolver placeholders) {
        if (!StringUtils.hasText(value)) {
            return null;
        }
        String resolved;
        try {
            resolved = placeholders.resolveRequiredPlaceholders(value).trim();
        } catch (IllegalArgumentException ex) {
            throw new IllegalStateException(
                    "@DistributedLock(" + attribute + " = \"" + value + "\") of " + describe(method)
                            + " has a placeholder that cannot be resolved: " + ex.getMessage(),
                    ex);
        }
        Duration duration;
        try {
            duration = DurationParser.parse(resolved);
        } catch (IllegalArgumentException ex) {
            throw new IllegalStateException(
                    "@DistributedLock(" + attribute + " = \"" + value + "\") of " + describe(method)
                            + " is not a duration; use a value such as \"5s\" or \"PT5S\"",
                    ex);
        }
        if (duration.isNegative()) {
            throw new IllegalStateException("@DistributedLock(" + attribute + " = \"" + value + "\") of "
                    + describe(method) + " must not be negative");
        }
        return duration;
    }

    Method method() {
        return this.method;
    }

    /** The fixed lock name, or {@code null} when the lock is named by a key expression. */
    @Nullable
    String name() {
        return this.name;
    }

    /** The key expression, or {@code null} when the lock has a fixed name or several keys. */
    @Nullable
    String keyExpression() {
        return this.keyExpression;
    }

    /** The expressions of several locks taken together; empty for one lock. */
    List<String> keyExpressions() {
        return this.keyExpressions;
    }

    LockMode mode() {
        return this.mode;
    }

    int permits() {
        return this.permits;
    }

    @Nullable
    Duration waitTimeout() {
        return this.waitTimeout;
    }

    @Nullable
    Duration leaseTtl() {
        return this.leaseTtl;
    }

    LockNotAcquiredPolicy policy() {
        return this.policy;
    }

    /**
     * Whether the method returns a Reactor {@code Mono} or {@code Flux}, whose subscriptions are
     * locked ({@link ReactiveLockCall}). Read by name, so no Reactor class is loaded without Reactor.
     */
    boolean returnsPublisher() {
        return isLockablePublisher(this.method.getReturnType()) || isSuspendFunction();
    }

    /**
     * Whether the method returns a {@code Mono} (otherwise a {@code Flux}, when {@link
     * #returnsPublisher()}). A Kotlin suspend function counts as one: Spring's proxy runs it as a
     * {@code Mono} that its advice sees, and awaits that {@code Mono} for the caller.
     */
    boolean returnsMono() {
        return this.method.getReturnType().getName().equals("reactor.core.publisher.Mono") || isSuspendFunction();
    }

    /** Whether the method is a Kotlin {@code suspend} function. */
    boolean isSuspendFunction() {
        return isSuspendFunction(this.method);
    }

    /** Compiled, a {@code suspend fun f(a: A): R} is {@code Object f(A a, Continuation<? super R> c)}. */
    static boolean isSuspendFunction(Method method) {
        Class<?>[] parameters = method.getParameterTypes();
        return parameters.length > 0
                && parameters[parameters.length - 1].getName().equals("kotlin.coroutines.Continuation");
    }

    /** Whether {@code type} is exactly {@code Mono} or {@code Flux}, the publishers a lock can cover. */
    static boolean isLockablePublisher(Class<?> type) {
        return type.getName().equals("reactor.core.publisher.Mono")
                || type.getName().equals("reactor.core.publisher.Flux");
    }

    /** Whether the method returns a stage that the lock should be held for. */
    boolean holdsUntilCompletion() {
        Class<?> type = this.method.getReturnType();
        return CompletionStage.class.isAssignableFrom(type) && type.isAssignableFrom(CompletableFuture.class);
    }

    /** The value a skipped call returns (see {@link LockNotAcquiredPolicy#SKIP}). */
    @Nullable
    Object skippedValue() {
        Class<?> type = this.method.getReturnType();
        if (type == boolean.class || type == Boolean.class) {
            return false;
        }
        if (type == Optional.class) {
            return Optional.empty();
        }
        if (holdsUntilCompletion()) {
            return CompletableFuture.completedFuture(null);
        }
        return PRIMITIVE_ZEROS.get(type);
    }

    /**
     * The bounded name for metrics and audit: the fixed name or the key expression (for several
     * keys, each lock is named by its own expression), never a resolved key.
     */
    String lockName() {
        return (this.name != null) ? this.name : String.valueOf(this.keyExpression);
    }

    /** How the lock is named in messages: the fixed name or the key expression(s). */
    String lockDescription() {
        if (!this.keyExpressions.isEmpty()) {
            return "keys "
                    + this.keyExpressions.stream()
                            .map(expression -> "\"" + expression + "\"")
                            .collect(Collectors.joining(", ", "{", "}"));
        }
        return (this.name != null) ? "name \"" + this.name + "\"" : "key \"" + this.keyExpression + "\"";
    }

    static String describe(Method method) {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName()
                + Arrays.stream(method.getParameterTypes())
                        .map(Class::getSimpleName)
                        .collect(Collectors.joining(", ", "(", ")"));
    }
}
