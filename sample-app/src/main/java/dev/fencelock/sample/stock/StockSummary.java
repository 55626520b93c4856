package dev.fencelock.sample.stock;

/** How many SKUs are stocked and how many units they hold together. */
public record StockSummary(long skus, long units) {}
