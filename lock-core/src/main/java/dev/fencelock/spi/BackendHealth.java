package dev.fencelock.spi;

import java.util.Map;

/**
 * What a backend reports about its store for health checks.
 *
 * @param up whether a linearizable read reached a quorum in time
 * @param details facts for operators: endpoints, members, leader, session leases
 */
public record BackendHealth(boolean up, Map<String, Object> details) {

    public BackendHealth {
        details = Map.copyOf(details);
    }
}
