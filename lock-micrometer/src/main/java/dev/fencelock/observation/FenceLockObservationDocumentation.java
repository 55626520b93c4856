package dev.fencelock.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of a lock. Their names differ from the {@code fencelock.*} meters of {@link
 * dev.fencelock.metrics.LockMetrics} on purpose: an observation's timer carries an {@code error}
 * tag, and one meter name must keep one set of tags.
 */
public enum FenceLockObservationDocumentation implements ObservationDocumentation {

    /** Waiting for a lock, until it is acquired or the attempt fails. */
    ACQUISITION {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultLockAcquisitionObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return new KeyName[] {LowCardinalityKeys.LOCK, LowCardinalityKeys.OUTCOME};
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return HighCardinalityKeys.values();
        }
    },

    /** The section that runs under the lock, until the lock is released or lost. */
    HOLD {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultLockHoldObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return new KeyName[] {LowCardinalityKeys.LOCK};
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return HighCardinalityKeys.values();
        }
    };

    /** Keys with a small, fixed set of values: safe as metric tags. */
    public enum LowCardinalityKeys implements KeyName {

        /** The lock's key template or name ({@code stock:{#sku}}), never the resolved key. */
        LOCK {
            @Override
            public String asString() {
                return "lock";
            }
        },

        /** How the acquisition ended. */
        OUTCOME {
            @Override
            public String asString() {
                return "outcome";
            }
        }
    }

    /** Keys with a value per resource or per acquisition: span attributes, never metric tags. */
    public enum HighCardinalityKeys implements KeyName {

        /** The resolved resource, such as {@code stock:apple}. */
        RESOURCE {
            @Override
            public String asString() {
                return "fencelock.resource";
            }
        },

        /** The fencing token of the lease, once the lock is held. */
        TOKEN {
            @Override
            public String asString() {
                return "fencelock.token";
            }
        }
    }
}
