package dev.fencelock.observation;

import dev.fencelock.observation.FenceLockObservationDocumentation.LowCardinalityKeys;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import java.util.Objects;

/**
 * {@code fencelock.acquisition}, contextual name {@code acquire <lock>}; low cardinality {@code
 * lock} and {@code outcome}, high cardinality {@code fencelock.resource} and {@code
 * fencelock.token}.
 */
public class DefaultLockAcquisitionObservationConvention implements LockAcquisitionObservationConvention {

    /** The shared instance. */
    public static final DefaultLockAcquisitionObservationConvention INSTANCE =
            new DefaultLockAcquisitionObservationConvention();

    @Override
    public String getName() {
        return "fencelock.acquisition";
    }

    @Override
    public String getContextualName(LockObservationContext context) {
        return "acquire " + context.getLockName();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
        String outcome = Objects.requireNonNullElse(context.getOutcome(), "unknown");
        return KeyValues.of(LockObservationKeyValues.lock(context), KeyValue.of(LowCardinalityKeys.OUTCOME, outcome));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(LockObservationContext context) {
        return LockObservationKeyValues.highCardinality(context);
    }
}
