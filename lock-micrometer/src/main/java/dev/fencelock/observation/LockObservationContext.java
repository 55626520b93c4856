package dev.fencelock.observation;

import dev.fencelock.LockLease;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What an observation of a lock knows: the lock's bounded name (safe as a low-cardinality key), the
 * resolved resource and, once acquired, the lease with its fencing token (both high-cardinality).
 */
public class LockObservationContext extends Observation.Context {

    private final String lockName;

    private final String resource;

    private @Nullable LockLease lease;

    private @Nullable String outcome;

    public LockObservationContext(String lockName, String resource) {
        this.lockName = lockName;
        this.resource = resource;
    }

    /** The key template or name of the lock, never the resolved key. */
    public String getLockName() {
        return this.lockName;
    }

    /** The resolved resource; unbounded, so only for high-cardinality keys. */
    public String getResource() {
        return this.resource;
    }

    /** The lease, once the lock was acquired. */
    public @Nullable LockLease getLease() {
        return this.lease;
    }

    public void setLease(@Nullable LockLease lease) {
        this.lease = lease;
    }

    /**
     * How the acquisition ended ({@code acquired}, {@code reentered}, {@code timeout}, {@code
     * queue-full}, {@code unavailable}, {@code error}), or {@code null} while it runs.
     */
    public @Nullable String getOutcome() {
        return this.outcome;
    }

    public void setOutcome(@Nullable String outcome) {
        this.outcome = outcome;
    }
}
