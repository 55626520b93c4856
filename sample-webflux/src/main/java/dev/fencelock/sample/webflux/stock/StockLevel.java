package dev.fencelock.sample.webflux.stock;

/** The stock of one SKU. */
public record StockLevel(String sku, int quantity) {}
