package dev.fencelock.interceptor;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import dev.fencelock.LockQueueFullException;
import dev.fencelock.LockRequest;
import dev.fencelock.annotation.LockNotAcquiredPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.ProxyMethodInvocation;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Operators;
import reactor.core.publisher.Sinks;
import reactor.util.context.ContextView;

/**
 * Runs {@code @DistributedLock} methods that return a Reactor {@code Mono} or {@code Flux}: the
 * proxy returns a publisher of the same kind that takes the lock for each subscription.
 *
 * <p>On subscription the lock is acquired without blocking ({@link LockClient#acquireAsync}), then
 * the method is called (so nothing of it runs while the lock is not held, and a skipped call never
 * calls it) and its publisher subscribed to with the fences in the Reactor context under {@link
 * FencingContext#CONTEXT_KEY}, and on the thread in {@link FencingContext} while the method runs and
 * its publisher is subscribed to. The lock is released, without blocking, when that publisher
 * completes, fails or is cancelled; completion and failure reach the subscriber after the release.
 * A loss of the lock while the publisher runs cancels it and fails the subscriber with a {@link
 * LockLostException}; a loss found at the release turns completion into that exception and a
 * failure into it, with the failure suppressed.
 *
 * <p>Kotlin {@code suspend} functions take this path too: Spring's proxy runs the function as a
 * {@code Mono}, which the advice sees, and awaits it for the caller. The function's coroutine gets
 * the fences in its context through {@link SuspendingCallContext}.
 *
 * <p>Re-entrancy without a thread: a call re-enters a lock (same token, no store call) when its
 * subscriber's context carries a fence of that resource, which is the case inside the publisher of
 * an enclosing locked call, or when it is subscribed to on a thread that runs an enclosing blocking
 * call of the resource.
 */
final class ReactiveLockCall {

    private static final Logger logger = LoggerFactory.getLogger(DistributedLockInterceptor.class);

    private final DistributedLockInterceptor interceptor;

    private final Supplier<LockClient> lockClient;

    private final Supplier<LockCallObserver> observer;

    ReactiveLockCall(
            DistributedLockInterceptor interceptor,
            Supplier<LockClient> lockClient,
            Supplier<LockCallObserver> observer) {
        this.interceptor = interceptor;
        this.lockClient = lockClient;
        this.observer = observer;
    }

    /** The publisher the proxy returns: a {@code Mono} or a {@code Flux}, as the method declares. */
    Object call(MethodInvocation invocation, LockDefinition definition) {
        Flux<Object> locked;
        try {
            List<String> resources = this.interceptor.resources(definition, invocation.getArguments());
            // Each subscription proceeds through a clone: the advice inside this one runs every time.
            MethodInvocation pristine =
                    (invocation instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone() : invocation;
            locked = Flux.deferContextual(context -> subscribe(pristine, definition, resources, context));
        } catch (RuntimeException ex) {
            locked = Flux.error(ex);
        }
        // A Mono's value reaches the subscriber once the lock is released, as a CompletionStage's does.
        return definition.returnsMono() ? locked.singleOrEmpty() : locked;
    }

    private Flux<Object> subscribe(
            MethodInvocation pristine, LockDefinition definition, List<String> resources, ContextView context) {
        List<Fence> outer = context.getOrDefault(FencingContext.CONTEXT_KEY, List.of());
        LockClient client = this.lockClient.get();
        // Several locks are taken in resource order, as acquireAll takes them, so that calls never wait in a cycle.
        List<String> ordered = resources.stream().sorted().toList();
        List<Function<Duration, LockRequest>> requests = new ArrayList<>(ordered.size());
        boolean reentered = true;
        for (String resource : ordered) {
            LockLease enclosing = enclosing(outer, resource);
            reentered &= (enclosing != null);
            String lockName = definition.keyExpressions().isEmpty()
                    ? definition.lockName()
                    : DistributedLockInterceptor.keyNameOf(definition, resources, resources.indexOf(resource));
            requests.add(wait -> this.interceptor.request(definition, resource, lockName, enclosing, wait));
        }
        Duration wait = (definition.waitTimeout() != null)
                ? definition.waitTimeout()
                : client.settings().defaultWaitTimeout();
        Call call = new Call(
                definition,
                this.observer.get().acquiringDetached(definition.lockName(), String.join(", ", resources)),
                reentered);
        Mono<CallLocks> acquired = Mono.<CallLocks>create(
                        sink -> bridge(CallLocksAcquisition.start(client, ordered, requests, wait), sink))
                // Granted while the subscriber went away: give it back.
                .doOnDiscard(CallLocks.class, CallLocks::releaseAsync)
                .onErrorResume(call::notAcquired)
                .doOnNext(call::acquired);
        return Flux.usingWhen(
                        acquired,
                        locks -> call.run(pristine, locks, outer),
                        call::release,
                        (locks, failure) -> call.release(locks),
                        call::cancelled)
                .onErrorMap(call::outcome)
                .concatWith(Mono.defer(call::completed));
    }

    /** The lease of an enclosing call of {@code resource}: in the subscriber's context, or on this thread. */
    private static @Nullable LockLease enclosing(List<Fence> outer, String resource) {
        for (int i = outer.size() - 1; i >= 0; i--) {
            Fence fence = outer.get(i);
            if (fence.resource().equals(resource) && fence.lease() != null) {
                return fence.lease();
            }
        }
        return ThreadHolds.outermost(resource);
    }

    /** Hands the acquired locks to the subscriber, or back to the store when it went away first. */
    private static void bridge(CompletableFuture<CallLocks> acquisition, MonoSink<CallLocks> sink) {
        AtomicBoolean settled = new AtomicBoolean();
        sink.onCancel(() -> {
            if (settled.compareAndSet(false, true)) {
                acquisition.cancel(false); // the acquisition gives back what it took
            }
        });
        acquisition.whenComplete((locks, failure) -> {
            if (!settled.compareAndSet(false, true)) {
                if (locks != null) {
                    locks.releaseAsync();
                }
                return;
            }
            if (failure != null) {
                sink.error(failure);
            } else {
                sink.success(locks);
            }
        });
    }

    /** One subscription: its locks, how they ended, and what the subscriber is told. */
    private static final class Call {

        private final LockDefinition definition;

        private final LockCallObserver.Acquiring acquiring;

        private final boolean reentered;

        /** Signals a loss to the running publisher: {@code takeUntilOther} cancels it then (an error would not). */
        private final Sinks.One<Boolean> lost = Sinks.one();

        /** Never interrupts: no thread runs the call. */
        private final LossWatch watch = new LossWatch(Thread.currentThread(), false);

        private volatile LockCallObserver.Holding holding = LockCallObserver.Holding.NONE;

        private volatile @Nullable CallLocks locks;

        private volatile @Nullable LockLostException lostWhileRunning;

        private volatile boolean released;

        private volatile boolean heldUntilRelease;

        private final AtomicBoolean reported = new AtomicBoolean();

        /** When the method's code has stopped running: a suspend function's coroutine tells it. */
        private final FunctionEnd end = new FunctionEnd();

        Call(LockDefinition definition, LockCallObserver.Acquiring acquiring, boolean reentered) {
            this.definition = definition;
            this.acquiring = acquiring;
            this.reentered = reentered;
        }

        Mono<CallLocks> notAcquired(Throwable failure) {
            this.acquiring.failed(failure);
            if (this.definition.policy() == LockNotAcquiredPolicy.SKIP
                    && (failure instanceof LockAcquisitionTimeoutException
                            || failure instanceof LockQueueFullException)) {
                logger.debug("Skipped {}: {}", LockDefinition.describe(this.definition.method()), failure.getMessage());
                return Mono.empty();
            }
            return Mono.error(failure);
        }

        void acquired(CallLocks locks) {
            this.locks = locks;
            this.watch.detach();
            try {
                this.holding = this.acquiring.acquired(locks.leases().get(0), this.reentered);
            } finally {
                locks.onLost((lease, cause) -> {
                    this.watch.accept(lease, cause);
                    if (!this.released) {
                        LockLostException lostNow = lost(locks, null, "; its publisher was cancelled.");
                        this.lostWhileRunning = lostNow;
                        this.lost.tryEmitValue(Boolean.TRUE);
                    }
                });
            }
        }

        Publisher<Object> run(MethodInvocation pristine, CallLocks locks, List<Fence> outer) {
            List<Fence> fences = new ArrayList<>(outer);
            fences.addAll(locks.fences());
            List<Fence> carried = List.copyOf(fences);
            return new Flux<Object>() {
                @Override
                public void subscribe(CoreSubscriber<? super Object> subscriber) {
                    proceed(pristine, locks, carried, subscriber);
                }
            }.takeUntilOther(this.lost.asMono())
                    .contextWrite(context -> context.put(FencingContext.CONTEXT_KEY, carried));
        }

        /**
         * Calls the method and subscribes to its publisher with the fences on this thread too, so
         * that what the method does before it returns, and what its publisher does while it is
         * subscribed to, sees them without context propagation.
         */
        @SuppressWarnings("unchecked")
        private void proceed(
                MethodInvocation pristine,
                CallLocks locks,
                List<Fence> carried,
                CoreSubscriber<? super Object> subscriber) {
            MethodInvocation invocation =
                    (pristine instanceof ProxyMethodInvocation proxied) ? proxied.invocableClone() : pristine;
            if (this.definition.isSuspendFunction()) {
                carryIntoCoroutine(invocation, carried, this.end);
            }
            for (LockLease lease : locks.leases()) {
                ThreadHolds.enter(lease.resource(), lease);
            }
            FencingContext.Scope fences = locks.pushFences();
            try {
                Object returned;
                try {
                    returned = invocation.proceed();
                } catch (Throwable ex) {
                    Operators.error(subscriber, ex);
                    return;
                } finally {
                    this.holding.returned();
                }
                Publisher<Object> publisher = (returned != null) ? (Publisher<Object>) returned : Flux.empty();
                publisher.subscribe(subscriber);
            } finally {
                fences.close();
                locks.leases().forEach(lease -> ThreadHolds.exit(lease.resource()));
            }
        }

        /**
         * A suspend function runs in a coroutine of the context of its continuation argument (the
         * clone has its own copy of the arguments): that context gets the fences, for the threads
         * the function resumes on after each suspension.
         */
        private static void carryIntoCoroutine(MethodInvocation invocation, List<Fence> carried, FunctionEnd end) {
            Object[] arguments = invocation.getArguments();
            SuspendingCallContext.find()
                    .ifPresent(context -> arguments[arguments.length - 1] =
                            context.carrying(arguments[arguments.length - 1], carried, end));
        }

        /**
         * Releases once the method's code has stopped: a cancelled suspend function's coroutine
         * runs its {@code finally} blocks first, and they are part of what the lock covers.
         */
        Mono<Void> release(CallLocks locks) {
            return Mono.fromFuture(this.end.ended(), true).then(Mono.defer(() -> {
                this.released = true;
                return Mono.fromFuture(locks.releaseAsync(), true)
                        .doOnNext(held -> this.heldUntilRelease = held)
                        .then();
            }));
        }

        Mono<Void> cancelled(CallLocks locks) {
            return release(locks).doOnTerminate(() -> {
                Throwable outcome = held() ? null : lost(locks, null, "; its subscriber had cancelled.");
                if (outcome != null) {
                    logger.warn(outcome.getMessage());
                }
                report(outcome);
            });
        }

        /** What a failure of the held section becomes once the locks are released. */
        Throwable outcome(Throwable failure) {
            CallLocks locks = this.locks;
            if (locks == null || !this.released) {
                return failure; // not acquired: the observer was told
            }
            Throwable outcome;
            if (failure == this.lostWhileRunning || held()) {
                outcome = failure;
            } else {
                outcome = lost(locks, failure, " and failed; the failure is suppressed.");
            }
            report(outcome);
            return outcome;
        }

        /** After the held section completed and the locks were released: a loss fails the call. */
        Mono<Object> completed() {
            CallLocks locks = this.locks;
            if (locks == null) {
                return Mono.empty(); // skipped
            }
            LockLostException lostWhileRunning = this.lostWhileRunning;
            Throwable outcome = (lostWhileRunning != null)
                    ? lostWhileRunning
                    : held() ? null : lost(locks, null, "; its publisher had completed.");
            report(outcome);
            return (outcome != null) ? Mono.error(outcome) : Mono.empty();
        }

        private boolean held() {
            return this.heldUntilRelease && this.watch.cause() == null;
        }

        private void report(@Nullable Throwable outcome) {
            if (this.reported.compareAndSet(false, true)) {
                this.holding.released(outcome);
            }
        }

        private LockLostException lost(CallLocks locks, @Nullable Throwable failure, String what) {
            LockLease lostLease = (this.watch.lost() != null)
                    ? this.watch.lost()
                    : locks.leases().get(0);
            String resources = locks.resources();
            LockLostException lost = new LockLostException(
                    Character.toUpperCase(resources.charAt(0)) + resources.substring(1) + " ("
                            + this.definition.lockDescription() + ", " + locks.tokens() + ") "
                            + ((locks.leases().size() == 1) ? "was lost" : "were not all held to the end")
                            + " while the publisher of " + LockDefinition.describe(this.definition.method())
                            + " ran" + what
                            + " If this repeats, raise fencelock.lease-ttl or check the connection to the lock store.",
                    lostLease.resource(),
                    lostLease.fencingToken(),
                    this.watch.cause());
            if (failure != null) {
                lost.addSuppressed(failure);
            }
            return lost;
        }
    }
}
