package dev.fencelock.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** Names and keys of the held-section observation; implement it to change them. */
public interface LockHoldObservationConvention extends ObservationConvention<LockObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof LockObservationContext;
    }
}
