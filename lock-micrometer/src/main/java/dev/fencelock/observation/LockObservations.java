package dev.fencelock.observation;

import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockEventListener;
import dev.fencelock.LockLease;
import dev.fencelock.LockQueueFullException;
import dev.fencelock.LockRequest;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Observes locks with the Micrometer Observation API: {@code fencelock.acquisition} for the wait
 * and {@code fencelock.hold} for the section that runs under the lock. Each observation is in scope
 * on the caller's thread while it runs, so with tracing the acquisition and the held section are
 * spans of the caller's trace, and the spans of the work done under the lock are children of the
 * held section's span.
 *
 * <p>Observations start and end on the caller's thread, which a {@link LockEventListener} cannot
 * do: its events arrive on the backend's threads once an acquisition is complete. The starter
 * applies this to {@code @DistributedLock} methods; {@link #acquire} and {@link #holding} do the
 * same for code that uses the {@link LockClient} directly.
 */
public final class LockObservations {

    private final ObservationRegistry registry;

    private final @Nullable LockAcquisitionObservationConvention acquisitionConvention;

    private final @Nullable LockHoldObservationConvention holdConvention;

    /** Observations with the default conventions. */
    public LockObservations(ObservationRegistry registry) {
        this(registry, null, null);
    }

    /**
     * Observations with conventions of the application's, where given.
     *
     * @param registry where the observations go
     * @param acquisitionConvention replaces {@link DefaultLockAcquisitionObservationConvention}, or {@code null}
     * @param holdConvention replaces {@link DefaultLockHoldObservationConvention}, or {@code null}
     */
    public LockObservations(
            ObservationRegistry registry,
            @Nullable LockAcquisitionObservationConvention acquisitionConvention,
            @Nullable LockHoldObservationConvention holdConvention) {
        this.registry = Objects.requireNonNull(registry, "registry must not be null");
        this.acquisitionConvention = acquisitionConvention;
        this.holdConvention = holdConvention;
    }

    /**
     * Starts observing the acquisition of {@code resource}, in scope on this thread; end it on this
     * thread with {@link Acquisition#acquired} or {@link Acquisition#failed}.
     *
     * @param lockName the lock's key template or name, never the resolved key
     */
    public Acquisition startAcquisition(String lockName, String resource) {
        return start(lockName, resource, true);
    }

    /**
     * Starts observing the acquisition of {@code resource} without putting it in scope on any
     * thread, for work that moves between threads (a Reactor publisher): end it, and the held section
     * it leads to, on any thread.
     *
     * @param lockName the lock's key template or name, never the resolved key
     */
    public Acquisition startDetachedAcquisition(String lockName, String resource) {
        return start(lockName, resource, false);
    }

    private Acquisition start(String lockName, String resource, boolean inScope) {
        LockObservationContext context = new LockObservationContext(lockName, resource);
        Observation observation = FenceLockObservationDocumentation.ACQUISITION
                .observation(
                        this.acquisitionConvention,
                        DefaultLockAcquisitionObservationConvention.INSTANCE,
                        () -> context,
                        this.registry)
                .start();
        return new Acquisition(context, observation, inScope ? observation.openScope() : null);
    }

    /** Acquires through {@code client} under an acquisition observation. */
    public LockLease acquire(LockClient client, LockRequest request) {
        String lockName = Objects.requireNonNullElse(request.lockName(), LockEventListener.UNNAMED);
        Acquisition acquisition = startAcquisition(lockName, request.resource());
        LockLease lease;
        try {
            lease = client.acquire(request);
        } catch (RuntimeException ex) {
            acquisition.failed(ex);
            throw ex;
        }
        acquisition.succeeded(lease, false);
        return lease;
    }

    /** Runs {@code work} under the held-section observation of {@code lease}, in scope on this thread. */
    public <T> T holding(LockLease lease, Supplier<T> work) {
        LockObservationContext context = new LockObservationContext(lease.lockName(), lease.resource());
        context.setLease(lease);
        return hold(context).observe(work);
    }

    private Observation hold(LockObservationContext context) {
        return FenceLockObservationDocumentation.HOLD.observation(
                this.holdConvention, DefaultLockHoldObservationConvention.INSTANCE, () -> context, this.registry);
    }

    /** The outcome key value of a failed acquisition. */
    static String outcomeOf(Throwable cause) {
        if (cause instanceof LockAcquisitionTimeoutException) {
            return "timeout";
        }
        if (cause instanceof LockQueueFullException) {
            return "queue-full";
        }
        if (cause instanceof LockBackendUnavailableException) {
            return "unavailable";
        }
        return "error";
    }

    /** An acquisition being observed; end it on the thread that started it. */
    public final class Acquisition {

        private final LockObservationContext context;

        private final Observation observation;

        /** {@code null} for a detached acquisition. */
        private final Observation.@Nullable Scope scope;

        private Acquisition(
                LockObservationContext context, Observation observation, Observation.@Nullable Scope scope) {
            this.context = context;
            this.observation = observation;
            this.scope = scope;
        }

        /**
         * Ends the acquisition with the lock, and starts observing the held section, in scope on
         * this thread.
         *
         * @param reentered whether the lock was already held by an enclosing call (no store call)
         */
        public Hold acquired(LockLease lease, boolean reentered) {
            succeeded(lease, reentered);
            LockObservationContext held = new LockObservationContext(this.context.getLockName(), lease.resource());
            held.setLease(lease);
            Observation observation = hold(held).start();
            return new Hold(observation, (this.scope != null) ? observation.openScope() : null);
        }

        private void succeeded(LockLease lease, boolean reentered) {
            this.context.setLease(lease);
            this.context.setOutcome(reentered ? "reentered" : "acquired");
            closeScope();
            this.observation.stop();
        }

        /** Ends the acquisition without the lock. */
        public void failed(Throwable cause) {
            this.context.setOutcome(outcomeOf(cause));
            this.observation.error(cause);
            closeScope();
            this.observation.stop();
        }

        private void closeScope() {
            if (this.scope != null) {
                this.scope.close();
            }
        }
    }

    /** A held section being observed: in scope on its thread until {@link #leaveThread()}. */
    public static final class Hold {

        private final Observation observation;

        private final Observation.@Nullable Scope scope;

        private final AtomicBoolean inScope;

        private Hold(Observation observation, Observation.@Nullable Scope scope) {
            this.observation = observation;
            this.scope = scope;
            this.inScope = new AtomicBoolean(scope != null);
        }

        /**
         * Takes the held section out of scope on the thread that acquired the lock, when the work
         * under the lock goes on elsewhere (a returned {@code CompletableFuture}); idempotent.
         */
        public void leaveThread() {
            // A scope closed twice would notify the tracing handlers twice.
            if (this.inScope.compareAndSet(true, false) && this.scope != null) {
                this.scope.close();
            }
        }

        /**
         * Ends the held section, once the lock is released or lost, with the failure of the work if
         * any; on the thread that acquired the lock unless {@link #leaveThread()} was called there.
         */
        public void end(@Nullable Throwable failure) {
            leaveThread();
            if (failure != null) {
                this.observation.error(failure);
            }
            this.observation.stop();
        }
    }
}
