package dev.fencelock.sample.stock;

/** A reservation asked for more units than are in stock; nothing was written. */
public class InsufficientStockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public InsufficientStockException(String sku, int available, int requested) {
        super("Only " + available + " unit(s) of '" + sku + "' in stock, " + requested + " requested");
    }
}
