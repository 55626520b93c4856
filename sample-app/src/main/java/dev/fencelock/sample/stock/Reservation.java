package dev.fencelock.sample.stock;

/** An accepted reservation: the stock left afterwards and the fencing token it was written with. */
public record Reservation(String sku, int quantity, long fencingToken) {}
