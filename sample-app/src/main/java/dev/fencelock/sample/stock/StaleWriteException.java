package dev.fencelock.sample.stock;

import dev.fencelock.FencingTokenRejectedException;

/**
 * A reservation's write was refused because its fencing token is stale, with who refused it.
 *
 * <p>Both refusals are correct: the client refuses on its own once it knows its lease is lost
 * (cheap, no SQL sent); the database refuses when the client still believes it holds the lock but
 * a newer holder has already written with a larger token. Only the second one is what makes a
 * paused process safe, which is why the demo reports which of the two happened.
 */
public class StaleWriteException extends FencingTokenRejectedException {

    private static final long serialVersionUID = 1L;

    /** Who refused the write. */
    public enum RefusedBy {
        /** The fence guard or the row's token condition in the database. */
        DATABASE,
        /** This instance, because it already knew its lease was lost. */
        CLIENT
    }

    private final RefusedBy refusedBy;

    public StaleWriteException(FencingTokenRejectedException cause, RefusedBy refusedBy) {
        super(
                cause.getResource(),
                cause.getToken(),
                cause.getAcceptedToken().isPresent() ? cause.getAcceptedToken().getAsLong() : null,
                cause.getMessage(),
                cause.refusedBy());
        initCause(cause);
        this.refusedBy = refusedBy;
    }

    /** Who refused the write, as the demo reports it: this instance or the database. */
    public RefusedBy refuser() {
        return this.refusedBy;
    }
}
