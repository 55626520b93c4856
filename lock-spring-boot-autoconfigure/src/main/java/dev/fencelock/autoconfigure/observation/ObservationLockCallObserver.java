package dev.fencelock.autoconfigure.observation;

import dev.fencelock.LockLease;
import dev.fencelock.interceptor.LockCallObserver;
import dev.fencelock.observation.LockObservations;
import org.jspecify.annotations.Nullable;

/** Observes {@code @DistributedLock} calls through {@link LockObservations}. */
final class ObservationLockCallObserver implements LockCallObserver {

    private final LockObservations observations;

    ObservationLockCallObserver(LockObservations observations) {
        this.observations = observations;
    }

    @Override
    public Acquiring acquiring(String lockName, String resource) {
        return observe(this.observations.startAcquisition(lockName, resource));
    }

    @Override
    public Acquiring acquiringDetached(String lockName, String resource) {
        return observe(this.observations.startDetachedAcquisition(lockName, resource));
    }

    private static Acquiring observe(LockObservations.Acquisition acquisition) {
        return new Acquiring() {
            @Override
            public Holding acquired(LockLease lease, boolean reentered) {
                LockObservations.Hold hold = acquisition.acquired(lease, reentered);
                return new Holding() {
                    @Override
                    public void returned() {
                        hold.leaveThread();
                    }

                    @Override
                    public void released(@Nullable Throwable failure) {
                        hold.end(failure);
                    }
                };
            }

            @Override
            public void failed(Throwable cause) {
                acquisition.failed(cause);
            }
        };
    }
}
