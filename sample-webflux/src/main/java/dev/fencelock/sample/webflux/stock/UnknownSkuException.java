package dev.fencelock.sample.webflux.stock;

/** No stock row exists for the SKU. */
public class UnknownSkuException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public UnknownSkuException(String sku) {
        super("Unknown SKU '" + sku + "': set its stock with PUT /stock/" + sku + " first");
    }
}
