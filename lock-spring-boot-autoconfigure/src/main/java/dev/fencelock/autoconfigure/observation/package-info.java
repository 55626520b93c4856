/** Auto-configuration of the Observation API (and so tracing) for {@code @DistributedLock} calls. */
@NullMarked
package dev.fencelock.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
