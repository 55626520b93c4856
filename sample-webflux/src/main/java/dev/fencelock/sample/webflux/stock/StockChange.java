package dev.fencelock.sample.webflux.stock;

/** The body of {@code PUT /stock/{sku}}: the new stock level. */
public record StockChange(int quantity) {}
