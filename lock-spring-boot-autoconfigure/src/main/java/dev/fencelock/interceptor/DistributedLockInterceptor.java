package dev.fencelock.interceptor;

import dev.fencelock.FencingContext;
import dev.fencelock.InvalidLockKeyException;
import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.LockQueueFullException;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.annotation.LockNotAcquiredPolicy;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.PropertyResolver;

/**
 * Runs {@link DistributedLock @DistributedLock} methods under their lock; {@link
 * DistributedLockAdvisor} applies it to the annotated methods of every proxied bean.
 *
 * <p>For each call: resolve the key, acquire through the {@link LockClient}, push the lease's
 * fence onto {@link FencingContext}, run the method, pop the fence and release, also when the
 * method throws. The advisor's order is a property so that the lock advice wraps {@code
 * @Transactional}: the lock is taken before the transaction begins and released after it has
 * committed, otherwise the next holder could read data the previous one has not committed yet.
 *
 * <p>If the lock is lost during the call, the method's thread is interrupted (when configured), a
 * transaction of the call that has not committed yet is refused its commit, and the caller gets a
 * {@link LockLostException} that says what was committed. A loss after the call's last transaction
 * committed is not a failure: that work is done, and reporting it as failed would invite a retry
 * that does it twice. The caller gets the result; the loss is logged and reported to the client's
 * listeners ({@code fencelock.lost.after.commit}). {@link CallTransactionListener} tells the call
 * how its transactions ended.
 */
public class DistributedLockInterceptor implements MethodInterceptor {

    private static final Logger logger = LoggerFactory.getLogger(DistributedLockInterceptor.class);

    private final Supplier<LockClient> lockClient;

    private final Supplier<LockKeyResolver> keyResolver;

    private final PropertyResolver placeholders;

    private final boolean interruptOnLost;

    private final boolean releaseInBackground;

    private final Supplier<LockCallObserver> observer;

    private final Map<Method, LockDefinition> definitions = new ConcurrentHashMap<>();

    /**
     * Creates the interceptor.
     *
     * @param lockClient supplies the client on first use; the interceptor is created early (while
     *     proxies are set up), and resolving the client lazily keeps the client and whatever it
     *     depends on out of that early phase
     * @param keyResolver supplies the evaluator of key expressions on first use, lazily for the
     *     same reason (an application's own resolver may depend on application beans)
     * @param placeholders resolves {@code ${...}} in durations
     * @param interruptOnLost whether to interrupt a locked method whose lock is lost
     * @param releaseInBackground whether a locked method returns without waiting for the store to
     *     delete its lock ({@link LockLease#releaseAsync()})
     */
    public DistributedLockInterceptor(
            Supplier<LockClient> lockClient,
            Supplier<LockKeyResolver> keyResolver,
            PropertyResolver placeholders,
            boolean interruptOnLost,
            boolean releaseInBackground) {
        this(lockClient, keyResolver, placeholders, interruptOnLost, releaseInBackground, () -> LockCallObserver.NONE);
    }

    /**
     * Creates the interceptor with an observer of each call's acquisition and held section.
     *
     * @param observer supplies the observer on first use, lazily like the client
     * @see #DistributedLockInterceptor(Supplier, Supplier, PropertyResolver, boolean, boolean)
     */
    public DistributedLockInterceptor(
            Supplier<LockClient> lockClient,
            Supplier<LockKeyResolver> keyResolver,
            PropertyResolver placeholders,
            boolean interruptOnLost,
            boolean releaseInBackground,
            Supplier<LockCallObserver> observer) {
        this.observer = observer;
        this.lockClient = lockClient;
        this.keyResolver = keyResolver;
        this.placeholders = placeholders;
        this.interruptOnLost = interruptOnLost;
        this.releaseInBackground = releaseInBackground;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        LockDefinition definition = definition(method(invocation));
        String resource = resource(definition, invocation.getArguments());
        boolean reentered = ThreadHolds.outermost(resource) != null;
        LockCallObserver.Acquiring acquiring = this.observer.get().acquiring(definition.lockName(), resource);
        LockLease lease;
        try {
            lease = acquire(definition, resource);
        } catch (LockAcquisitionTimeoutException | LockQueueFullException ex) {
            acquiring.failed(ex);
            if (definition.policy() == LockNotAcquiredPolicy.SKIP) {
                logger.debug("Skipped {}: lock '{}' is busy", LockDefinition.describe(definition.method()), resource);
                return definition.skippedValue();
            }
            throw ex;
        } catch (RuntimeException ex) {
            acquiring.failed(ex);
            throw ex;
        }
        LockCallObserver.Holding holding = acquiring.acquired(lease, reentered);
        LossWatch watch = new LossWatch(Thread.currentThread(), this.interruptOnLost);
        lease.onLost(watch);
        CallTransactions transactions = CallTransactions.open(lease, describe(definition, lease));
        Object result;
        try {
            result = proceed(invocation, resource, lease, transactions);
        } catch (Throwable ex) {
            holding.returned();
            Throwable outcome = finish(definition, lease, watch, transactions, ex);
            holding.released(outcome);
            throw outcome;
        }
        holding.returned();
        if (result instanceof CompletionStage<?> stage) {
            if (watch.detach()) {
                // Lost before the method even returned its stage: the stage will report it.
                Thread.interrupted();
            }
            return holdUntilComplete(definition, lease, watch, transactions, stage, holding);
        }
        Throwable lost = finish(definition, lease, watch, transactions, null);
        holding.released(lost);
        if (lost != null) {
            throw lost;
        }
        return result;
    }

    /**
     * The checked definition of an annotated method, created once.
     *
     * @throws IllegalStateException or {@link InvalidLockKeyException} when the annotation is
     *     unusable
     */
    LockDefinition definition(Method method) {
        LockDefinition definition = this.definitions.get(method);
        if (definition == null) {
            DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
            if (annotation == null) {
                throw new IllegalStateException(LockDefinition.describe(method) + " has no @DistributedLock");
            }
            definition = LockDefinition.of(
                    method, annotation, this.placeholders, this.lockClient.get().settings(), this.keyResolver.get());
            this.definitions.putIfAbsent(method, definition);
        }
        return definition;
    }

    /** The method of the target class, whose annotation (or the one it inherits) applies. */
    private static Method method(MethodInvocation invocation) {
        Method method = invocation.getMethod();
        Object target = invocation.getThis();
        if (target != null) {
            method = AopUtils.getMostSpecificMethod(method, AopUtils.getTargetClass(target));
        }
        return BridgeMethodResolver.findBridgedMethod(method);
    }

    private String resource(LockDefinition definition, @Nullable Object[] arguments) {
        String name = definition.name();
        String raw = (name != null)
                ? name
                : this.keyResolver.get().resolve(definition.keyExpression(), definition.method(), arguments);
        try {
            return ResourceName.of(raw, this.lockClient.get().settings().maxResourceLength())
                    .value();
        } catch (InvalidLockKeyException ex) {
            throw new InvalidLockKeyException(
                    ex.getMessage() + " (lock " + definition.lockDescription() + " of "
                            + LockDefinition.describe(definition.method()) + ")",
                    ex);
        }
    }

    private LockLease acquire(LockDefinition definition, String resource) {
        // The name or key template, never the resolved key: metrics tag by it.
        LockRequest.Builder request = LockRequest.builder(resource).lockName(definition.lockName());
        LockLease outer = ThreadHolds.outermost(resource);
        if (outer != null) {
            if (!outer.isValid()) {
                throw new LockLostException("Lock '" + resource + "' (" + definition.lockDescription()
                        + "), held by an enclosing call on this thread, was lost before "
                        + LockDefinition.describe(definition.method()) + " started; the outer call will fail too");
            }
            // Same request id: the client adds a hold to the lock this thread has, with the same token.
            request.requestId(outer.requestId());
        }
        if (definition.waitTimeout() != null) {
            request.waitTimeout(definition.waitTimeout());
        }
        if (definition.leaseTtl() != null) {
            request.leaseTtl(definition.leaseTtl());
        }
        return this.lockClient.get().acquire(request.build());
    }

    private static @Nullable Object proceed(
            MethodInvocation invocation, String resource, LockLease lease, CallTransactions transactions)
            throws Throwable {
        ThreadHolds.enter(resource, lease);
        FencingContext.Scope fence = FencingContext.open(lease);
        try {
            return invocation.proceed();
        } finally {
            fence.close();
            ThreadHolds.exit(resource);
            transactions.close();
        }
    }

    /**
     * Stage-returning methods: their work goes on on other threads, whose transactions the call
     * cannot see, so a loss before the stage completes always fails it.
     */
    private Object holdUntilComplete(
            LockDefinition definition,
            LockLease lease,
            LossWatch watch,
            CallTransactions transactions,
            CompletionStage<?> stage,
            LockCallObserver.Holding holding) {
        if (!definition.holdsUntilCompletion()) {
            // A CompletableFuture subclass must be returned as it is; a loss can then only be logged.
            stage.whenComplete((value, failure) -> releaseAsync(lease).thenAccept((held) -> {
                Throwable lost = outcome(definition, lease, watch, transactions, false, null, held);
                if (lost != null) {
                    logger.warn(lost.getMessage());
                }
                holding.released((lost != null) ? lost : failure);
            }));
            return stage;
        }
        CompletableFuture<Object> result = new CompletableFuture<>();
        // Whoever completes the stage may be an event loop: release without blocking on the store.
        stage.whenComplete((value, failure) -> releaseAsync(lease).whenComplete((held, releaseFailure) -> {
            Throwable outcome =
                    outcome(definition, lease, watch, transactions, false, failure, Boolean.TRUE.equals(held));
            holding.released(outcome);
            if (outcome != null) {
                result.completeExceptionally(outcome);
            } else {
                result.complete(value);
            }
        }));
        result.whenComplete((value, failure) -> {
            if (result.isCancelled()) {
                cancel(stage);
            }
        });
        return result;
    }

    private static void cancel(CompletionStage<?> stage) {
        try {
            stage.toCompletableFuture().cancel(true);
        } catch (UnsupportedOperationException ex) {
            // The stage cannot be cancelled from outside; the lock is released when it completes.
        }
    }

    /**
     * Releases the lease on the calling thread and decides what the caller sees: {@code failure}
     * (possibly {@code null}) while the lock held throughout or was lost only after the call's work
     * had committed, otherwise a {@link LockLostException} with {@code failure} suppressed.
     */
    private @Nullable Throwable finish(
            LockDefinition definition,
            LockLease lease,
            LossWatch watch,
            CallTransactions transactions,
            @Nullable Throwable failure) {
        boolean interrupted = watch.detach();
        boolean held = this.releaseInBackground ? releaseInBackground(lease) : release(lease);
        if (interrupted) {
            // The interrupt was ours and has done its job; do not leak it into the caller's thread.
            Thread.interrupted();
        }
        return outcome(definition, lease, watch, transactions, true, failure, held);
    }

    /**
     * @param lateLossAllowed whether a loss after the call's last commit leaves the result standing:
     *     only when all of the call's work ran on its thread, where its transactions are seen
     */
    private @Nullable Throwable outcome(
            LockDefinition definition,
            LockLease lease,
            LossWatch watch,
            CallTransactions transactions,
            boolean lateLossAllowed,
            @Nullable Throwable failure,
            boolean heldUntilRelease) {
        if (heldUntilRelease && watch.cause() == null) {
            return failure;
        }
        if (lateLossAllowed && failure == null && transactions.committedLast()) {
            logger.warn(
                    "The {} was lost after the call's last transaction had committed; the call returns its result."
                            + " If this repeats, raise fencelock.lease-ttl or check the connection to the lock store.",
                    describe(definition, lease));
            this.lockClient.get().reportLostAfterCommit(lease);
            return null;
        }
        LockLostException lost = new LockLostException(
                "Lock '" + lease.resource() + "' (" + definition.lockDescription() + ", fencing token "
                        + lease.fencingToken() + ") was lost while " + LockDefinition.describe(definition.method())
                        + " ran" + transactions.outcome()
                        + " If this repeats, raise fencelock.lease-ttl or check the connection to the lock store.",
                watch.cause());
        if (failure != null) {
            lost.addSuppressed(failure);
        }
        return lost;
    }

    private static String describe(LockDefinition definition, LockLease lease) {
        return "lock '" + lease.resource() + "' (" + definition.lockDescription() + ", fencing token "
                + lease.fencingToken() + ") of " + LockDefinition.describe(definition.method());
    }

    private static CompletableFuture<Boolean> releaseAsync(LockLease lease) {
        try {
            return lease.releaseAsync().exceptionally((failure) -> {
                logger.warn("Could not release lock '{}'; its lease will expire", lease.resource(), failure);
                return false;
            });
        } catch (RuntimeException ex) {
            logger.warn("Could not release lock '{}'; its lease will expire", lease.resource(), ex);
            return CompletableFuture.completedFuture(false);
        }
    }

    /** Whether the lock was still held when it was given up; the store deletes it in the background. */
    private static boolean releaseInBackground(LockLease lease) {
        boolean held = lease.isValid();
        releaseAsync(lease);
        return held;
    }

    private static boolean release(LockLease lease) {
        try {
            return lease.release();
        } catch (RuntimeException ex) {
            logger.warn("Could not release lock '{}'; its lease will expire", lease.resource(), ex);
            return false;
        }
    }
}
