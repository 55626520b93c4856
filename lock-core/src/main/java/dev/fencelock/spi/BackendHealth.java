package dev.fencelock.spi;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What a backend reports about its store for health checks.
 *
 * @param up whether a linearizable read reached a quorum in time
 * @param details facts for operators: endpoints, members, leader, session leases
 * @param capacity how full the store is, when the backend could read it with this check
 */
public record BackendHealth(
        boolean up, Map<String, Object> details, @Nullable StoreCapacity capacity) {

    public BackendHealth {
        details = Map.copyOf(details);
    }

    /** A health without figures of the store's capacity. */
    public BackendHealth(boolean up, Map<String, Object> details) {
        this(up, details, null);
    }
}
