package dev.fencelock.observation;

import io.micrometer.common.KeyValues;

/**
 * {@code fencelock.hold}, contextual name {@code locked <lock>}; low cardinality {@code lock}, high
 * cardinality {@code fencelock.resource} and {@code fencelock.token}.
 */
public class DefaultLockHoldObservationConvention implements LockHoldObservationConvention {

    /** The shared instance. */
    public static final DefaultLockHoldObservationConvention INSTANCE = new DefaultLockHoldObservationConvention();

    @Override
    public String getName() {
        return "fencelock.hold";
    }

    @Override
    public String getContextualName(LockObservationContext context) {
        return "locked " + context.getLockName();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
        return KeyValues.of(LockObservationKeyValues.lock(context));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(LockObservationContext context) {
        return LockObservationKeyValues.highCardinality(context);
    }
}
