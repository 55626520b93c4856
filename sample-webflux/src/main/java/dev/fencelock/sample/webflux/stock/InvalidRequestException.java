package dev.fencelock.sample.webflux.stock;

/** A request parameter out of range. */
public class InvalidRequestException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public InvalidRequestException(String message) {
        super(message);
    }
}
