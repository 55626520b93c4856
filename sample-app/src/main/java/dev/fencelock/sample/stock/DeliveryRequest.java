package dev.fencelock.sample.stock;

import org.jspecify.annotations.Nullable;

/**
 * Body of {@code POST /api/stock/{sku}/deliveries}.
 *
 * @param quantity units delivered, at least 1
 */
public record DeliveryRequest(@Nullable Integer quantity) {}
