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
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * <p>For each call: resolve the key (or the {@code keys}, taken together with {@link
 * LockClient#acquireAll}), acquire through the {@link LockClient}, push each lease's fence onto
 * {@link FencingContext}, run the method, pop the fences and release, also when the
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
 *
 * <p>Methods that return a Reactor {@code Mono} or {@code Flux}, and Kotlin {@code suspend}
 * functions (which Spring's proxy runs as a {@code Mono}), are locked for each subscription instead,
 * by {@link ReactiveLockCall}.
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

    /** The path of methods that return a {@code Mono} or {@code Flux}; created on first use, with Reactor. */
    private volatile @Nullable ReactiveLockCall reactive;

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
        if (definition.returnsPublisher()) {
            return reactive().call(invocation, definition);
        }
        List<String> resources = resources(definition, invocation.getArguments());
        boolean reentered = resources.stream().allMatch(resource -> ThreadHolds.outermost(resource) != null);
        LockCallObserver.Acquiring acquiring =
                this.observer.get().acquiring(definition.lockName(), String.join(", ", resources));
        CallLocks locks;
        try {
            locks = acquire(definition, resources);
        } catch (LockAcquisitionTimeoutException | LockQueueFullException ex) {
            acquiring.failed(ex);
            if (definition.policy() == LockNotAcquiredPolicy.SKIP) {
                logger.debug(
                        "Skipped {}: lock '{}' is busy",
                        LockDefinition.describe(definition.method()),
                        String.join("', '", resources));
                return definition.skippedValue();
            }
            throw ex;
        } catch (RuntimeException ex) {
            acquiring.failed(ex);
            throw ex;
        }
        LockCallObserver.Holding holding = acquiring.acquired(locks.leases().get(0), reentered);
        LossWatch watch = new LossWatch(Thread.currentThread(), this.interruptOnLost);
        locks.onLost(watch);
        CallTransactions transactions = CallTransactions.open(locks, describe(definition, locks));
        Object result;
        try {
            result = proceed(invocation, locks, transactions);
        } catch (Throwable ex) {
            holding.returned();
            Throwable outcome = finish(definition, locks, watch, transactions, ex);
            holding.released(outcome);
            throw outcome;
        }
        holding.returned();
        if (result instanceof CompletionStage<?> stage) {
            if (watch.detach()) {
                // Lost before the method even returned its stage: the stage will report it.
                Thread.interrupted();
            }
            return holdUntilComplete(definition, locks, watch, transactions, stage, holding);
        }
        Throwable lost = finish(definition, locks, watch, transactions, null);
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

    private ReactiveLockCall reactive() {
        ReactiveLockCall reactive = this.reactive;
        if (reactive == null) {
            reactive = new ReactiveLockCall(this, this.lockClient, this.observer);
            this.reactive = reactive;
        }
        return reactive;
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

    /** The resources of one call: one, or those of {@code keys} (the same resource once). */
    List<String> resources(LockDefinition definition, @Nullable Object[] arguments) {
        if (definition.keyExpressions().isEmpty()) {
            String name = definition.name();
            return List.of(resource(
                    definition,
                    (name != null)
                            ? name
                            : this.keyResolver
                                    .get()
                                    .resolve(definition.keyExpression(), definition.method(), arguments)));
        }
        Set<String> resources = new LinkedHashSet<>();
        for (String expression : definition.keyExpressions()) {
            resources.add(
                    resource(definition, this.keyResolver.get().resolve(expression, definition.method(), arguments)));
        }
        return List.copyOf(resources);
    }

    private String resource(LockDefinition definition, String raw) {
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

    private CallLocks acquire(LockDefinition definition, List<String> resources) {
        if (definition.keyExpressions().isEmpty()) {
            return CallLocks.of(
                    this.lockClient.get().acquire(request(definition, resources.get(0), definition.lockName())));
        }
        List<LockRequest> requests = new ArrayList<>(resources.size());
        for (int i = 0; i < resources.size(); i++) {
            // Each lock is named by its own expression; keys that met on one resource share the first's.
            requests.add(request(definition, resources.get(i), keyNameOf(definition, resources, i)));
        }
        return CallLocks.of(this.lockClient.get().acquireAll(requests));
    }

    /** The expression that gave the {@code index}th distinct resource, for its bounded lock name. */
    static String keyNameOf(LockDefinition definition, List<String> resources, int index) {
        List<String> expressions = definition.keyExpressions();
        return (resources.size() == expressions.size()) ? expressions.get(index) : String.join(" | ", expressions);
    }

    private LockRequest request(LockDefinition definition, String resource, String lockName) {
        return request(definition, resource, lockName, ThreadHolds.outermost(resource), definition.waitTimeout());
    }

    /**
     * @param outer the lease of an enclosing call of the same resource, which this call re-enters
     * @param waitTimeout how long to wait, or {@code null} for {@code fencelock.wait-timeout}
     */
    LockRequest request(
            LockDefinition definition,
            String resource,
            String lockName,
            @Nullable LockLease outer,
            @Nullable Duration waitTimeout) {
        // The name or key template, never the resolved key: metrics tag by it.
        LockRequest.Builder request = LockRequest.builder(resource)
                .lockName(lockName)
                .mode(definition.mode())
                .permits(definition.permits());
        if (outer != null) {
            if (!outer.isValid()) {
                throw new LockLostException("Lock '" + resource + "' (" + definition.lockDescription()
                        + "), held by an enclosing call, was lost before "
                        + LockDefinition.describe(definition.method()) + " started; the outer call will fail too");
            }
            // Same request id: the client adds a hold to the lock the enclosing call has, with the same token.
            request.requestId(outer.requestId());
        }
        if (waitTimeout != null) {
            request.waitTimeout(waitTimeout);
        }
        if (definition.leaseTtl() != null) {
            request.leaseTtl(definition.leaseTtl());
        }
        return request.build();
    }

    private static @Nullable Object proceed(MethodInvocation invocation, CallLocks locks, CallTransactions transactions)
            throws Throwable {
        for (LockLease lease : locks.leases()) {
            ThreadHolds.enter(lease.resource(), lease);
        }
        FencingContext.Scope fences = locks.pushFences();
        try {
            return invocation.proceed();
        } finally {
            fences.close();
            locks.leases().forEach(lease -> ThreadHolds.exit(lease.resource()));
            transactions.close();
        }
    }

    /**
     * Stage-returning methods: their work goes on on other threads, whose transactions the call
     * cannot see, so a loss before the stage completes always fails it.
     */
    private Object holdUntilComplete(
            LockDefinition definition,
            CallLocks locks,
            LossWatch watch,
            CallTransactions transactions,
            CompletionStage<?> stage,
            LockCallObserver.Holding holding) {
        if (!definition.holdsUntilCompletion()) {
            // A CompletableFuture subclass must be returned as it is; a loss can then only be logged.
            stage.whenComplete((value, failure) -> locks.releaseAsync().thenAccept((held) -> {
                Throwable lost = outcome(definition, locks, watch, transactions, false, null, held);
                if (lost != null) {
                    logger.warn(lost.getMessage());
                }
                holding.released((lost != null) ? lost : failure);
            }));
            return stage;
        }
        CompletableFuture<Object> result = new CompletableFuture<>();
        // Whoever completes the stage may be an event loop: release without blocking on the store.
        stage.whenComplete((value, failure) -> locks.releaseAsync().whenComplete((held, releaseFailure) -> {
            Throwable outcome =
                    outcome(definition, locks, watch, transactions, false, failure, Boolean.TRUE.equals(held));
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
     * Releases the locks on the calling thread and decides what the caller sees: {@code failure}
     * (possibly {@code null}) while the locks held throughout or one was lost only after the call's
     * work had committed, otherwise a {@link LockLostException} with {@code failure} suppressed.
     */
    private @Nullable Throwable finish(
            LockDefinition definition,
            CallLocks locks,
            LossWatch watch,
            CallTransactions transactions,
            @Nullable Throwable failure) {
        boolean interrupted = watch.detach();
        boolean held = this.releaseInBackground ? releaseInBackground(locks) : locks.release();
        if (interrupted) {
            // The interrupt was ours and has done its job; do not leak it into the caller's thread.
            Thread.interrupted();
        }
        return outcome(definition, locks, watch, transactions, true, failure, held);
    }

    /**
     * @param lateLossAllowed whether a loss after the call's last commit leaves the result standing:
     *     only when all of the call's work ran on its thread, where its transactions are seen
     */
    private @Nullable Throwable outcome(
            LockDefinition definition,
            CallLocks locks,
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
                    describe(definition, locks));
            for (LockLease lease : locks.leases()) {
                if (!lease.isValid()) {
                    this.lockClient.get().reportLostAfterCommit(lease);
                }
            }
            return null;
        }
        String what = (locks.leases().size() == 1) ? "was lost" : "were not all held to the end";
        LockLease lostLease =
                (watch.lost() != null) ? watch.lost() : locks.leases().get(0);
        LockLostException lost = new LockLostException(
                capitalised(locks.resources()) + " (" + definition.lockDescription() + ", " + locks.tokens() + ") "
                        + what + " while " + LockDefinition.describe(definition.method()) + " ran"
                        + transactions.outcome()
                        + " If this repeats, raise fencelock.lease-ttl or check the connection to the lock store.",
                lostLease.resource(),
                lostLease.fencingToken(),
                watch.cause());
        if (failure != null) {
            lost.addSuppressed(failure);
        }
        return lost;
    }

    private static String capitalised(String text) {
        return Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }

    private static String describe(LockDefinition definition, CallLocks locks) {
        return locks.resources() + " (" + definition.lockDescription() + ", " + locks.tokens() + ") of "
                + LockDefinition.describe(definition.method());
    }

    /** Whether the locks were still held when they were given up; the store deletes them in the background. */
    private static boolean releaseInBackground(CallLocks locks) {
        boolean held = locks.isValid();
        locks.releaseAsync();
        return held;
    }
}
