package dev.fencelock.sample.stock;

import org.jspecify.annotations.Nullable;

/**
 * Body of {@code POST /api/stock-transfers}.
 *
 * @param from the SKU that gives units
 * @param to the SKU that receives them, another one
 * @param quantity units to move, at least 1
 */
public record TransferRequest(
        @Nullable String from,
        @Nullable String to,
        @Nullable Integer quantity) {}
