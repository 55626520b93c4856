package dev.fencelock.observation;

import dev.fencelock.LockLease;
import dev.fencelock.observation.FenceLockObservationDocumentation.HighCardinalityKeys;
import dev.fencelock.observation.FenceLockObservationDocumentation.LowCardinalityKeys;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

/** The key values both default conventions share. */
final class LockObservationKeyValues {

    private LockObservationKeyValues() {}

    static KeyValue lock(LockObservationContext context) {
        return KeyValue.of(LowCardinalityKeys.LOCK, context.getLockName());
    }

    static KeyValues highCardinality(LockObservationContext context) {
        KeyValues values = KeyValues.of(KeyValue.of(HighCardinalityKeys.RESOURCE, context.getResource()));
        LockLease lease = context.getLease();
        return (lease != null)
                ? values.and(KeyValue.of(HighCardinalityKeys.TOKEN, Long.toString(lease.fencingToken())))
                : values;
    }
}
