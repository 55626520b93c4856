package dev.fencelock.sample.stock;

/** How many units of a SKU are in stock. */
public record StockLevel(String sku, int quantity) {}
