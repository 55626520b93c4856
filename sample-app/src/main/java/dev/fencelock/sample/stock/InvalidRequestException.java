package dev.fencelock.sample.stock;

/** A request body value is missing or out of range. */
public class InvalidRequestException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public InvalidRequestException(String message) {
        super(message);
    }
}
