package dev.fencelock.sample.webflux.stock;

/** A reservation asked for more than the SKU has; nothing was written. */
public class InsufficientStockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public InsufficientStockException(String sku, int available, int requested) {
        super("SKU '" + sku + "' has " + available + " in stock, " + requested + " requested");
    }
}
