package dev.fencelock;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Base of every exception FenceLock throws. Unchecked, because a caller of a locked method
 * can rarely recover locally: the useful reaction (retry later, answer 409/423/503) is
 * decided at the edge of the application.
 */
public class LockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private @Nullable String resource;

    public LockException(String message) {
        super(message);
    }

    public LockException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * The resource of the lock this failure concerns, when known: the acquisitions of a {@link
     * LockClient} name it on every failure they throw, whoever threw it.
     */
    public Optional<String> resource() {
        return Optional.ofNullable(this.resource);
    }

    /** Names the failure's resource, unless the code that threw it already did. */
    LockException resourceIfUnnamed(String resource) {
        if (this.resource == null) {
            this.resource = resource;
        }
        return this;
    }
}
