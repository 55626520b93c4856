package dev.fencelock.annotation;

import dev.fencelock.LockMode;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.core.annotation.AliasFor;

/**
 * Runs the annotated method while this application instance holds a distributed lock, and
 * exposes the lock's fencing token through {@link dev.fencelock.FencingContext} for the duration
 * of the call.
 *
 * <pre>{@code
 * @DistributedLock(key = "'order:' + #orderId", waitTimeout = "5s")
 * public void ship(long orderId) { ... }
 * }</pre>
 *
 * <p>The annotation may also sit on an interface method that the bean's class implements, or on a
 * composed annotation of the application's own. The lock is taken by a Spring AOP proxy (no
 * AspectJ needed), so only calls that go through the proxy are locked: a call from another method
 * of the same object ({@code this.ship(42)}) is not. Methods
 * must be public or protected and not final. A method returning a {@link
 * java.util.concurrent.CompletionStage} keeps the lock until the stage completes. A method returning
 * a Reactor {@code Mono} or {@code Flux} takes the lock on each subscription, without blocking, and
 * keeps it until the publisher completes, fails or is cancelled; the fences are in the Reactor
 * context under {@link dev.fencelock.FencingContext#CONTEXT_KEY}. Other reactive return types are
 * refused at startup because the lock would be released before the publisher runs.
 *
 * <p>If the lock is lost while the method runs, the method's thread is interrupted (unless
 * {@code fencelock.aspect.interrupt-on-lost=false}) and the caller gets a {@link
 * dev.fencelock.LockLostException} instead of the method's result.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

    /** Alias for {@link #name()}. */
    @AliasFor("name")
    String value() default "";

    /**
     * Fixed lock name, used as it is (no expression). Exactly one of {@code name}, {@link #key()}
     * and {@link #keys()} must be set.
     */
    @AliasFor("value")
    String name() default "";

    /**
     * SpEL expression over the method's parameters that gives the lock name, for example {@code
     * "'order:' + #orderId"}. Parameters are available as {@code #name} (when compiled with
     * {@code -parameters}), {@code #p0} and {@code #a0}; their properties can be read, but no
     * methods, types, constructors or beans can be used. The result must be a non-empty string.
     */
    String key() default "";

    /**
     * Several SpEL expressions, each like {@link #key()}, for a method that needs several locks at
     * once, such as {@code {"'account:' + #from", "'account:' + #to"}}. The locks are taken with
     * {@link dev.fencelock.LockClient#acquireAll}: sorted by resource name whatever the order here
     * (two calls that list them differently never deadlock), under one wait timeout, all or nothing.
     * Keys that resolve to the same resource are locked once. Each lock's fence is pushed on {@link
     * dev.fencelock.FencingContext}.
     */
    String[] keys() default {};

    /**
     * {@link dev.fencelock.LockMode#SHARED} for a read lock that other readers hold at the same time;
     * {@link dev.fencelock.LockMode#EXCLUSIVE} (the default) for a write lock. A fenced data source
     * refuses SQL that may write under nothing but shared locks.
     */
    LockMode mode() default LockMode.EXCLUSIVE;

    /**
     * More than 1 makes the lock one permit of a semaphore: at most that many calls hold it at once.
     * Every caller must use the same number for a resource. Permits are not a fence: a fenced data
     * source refuses SQL that may write under nothing but permits.
     */
    int permits() default 1;

    /**
     * How long to wait for a busy lock, as a duration such as {@code "5s"}, {@code "500ms"} or
     * {@code "PT5S"} (a bare number counts milliseconds), or a {@code ${...}} placeholder; {@code
     * "0s"} tries once. Empty uses {@code fencelock.wait-timeout}.
     */
    String waitTimeout() default "";

    /**
     * Lease time to live (whole seconds, at least {@code "1s"}), as a duration or a {@code ${...}}
     * placeholder. Empty uses {@code fencelock.lease-ttl}.
     */
    String leaseTtl() default "";

    /** What to do when the lock stays busy for the whole wait timeout. */
    LockNotAcquiredPolicy onNotAcquired() default LockNotAcquiredPolicy.THROW;
}
