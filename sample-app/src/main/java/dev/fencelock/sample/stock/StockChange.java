package dev.fencelock.sample.stock;

import org.jspecify.annotations.Nullable;

/** Body of {@code PUT /api/stock/{sku}}: the new stock level. */
public record StockChange(@Nullable Integer quantity) {}
