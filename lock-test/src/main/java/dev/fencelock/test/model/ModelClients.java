package dev.fencelock.test.model;

import dev.fencelock.LockClientBuilder;
import java.time.Duration;

/** The client settings every system under test shares. */
public final class ModelClients {

    /**
     * Waiters wait for the whole script: a wait timeout firing in the middle of it would be a
     * transition the model does not take.
     */
    static final Duration WAIT = Duration.ofMinutes(30);

    private ModelClients() {}

    public static LockClientBuilder configure(LockClientBuilder builder, Duration leaseTtl) {
        return builder.defaultLeaseTtl(leaseTtl)
                .maxWaitTimeout(WAIT)
                .defaultWaitTimeout(WAIT)
                .tryTimeout(Duration.ofSeconds(5));
    }
}
