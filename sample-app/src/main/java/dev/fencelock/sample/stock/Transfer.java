package dev.fencelock.sample.stock;

/** A transfer that was written: the stock of both SKUs afterwards. */
public record Transfer(StockLevel from, StockLevel to) {}
