package dev.fencelock.sample.stock;

import org.jspecify.annotations.Nullable;

/**
 * Body of {@code POST /api/stock/{sku}/reservations}.
 *
 * @param quantity units to reserve, at least 1
 * @param holdMillis time spent inside the critical section between reading and writing the stock
 *     (0 to 60000); it opens the window in which a paused instance loses its lock and becomes a
 *     zombie, so the demo and tests can show the stale write being refused
 */
public record ReservationRequest(
        @Nullable Integer quantity, @Nullable Long holdMillis) {}
