package dev.fencelock.sample.webflux.stock;

/** A reservation made: what is left of the SKU's stock, and the fencing token it was written with. */
public record Reservation(String sku, int quantity, long fencingToken) {}
