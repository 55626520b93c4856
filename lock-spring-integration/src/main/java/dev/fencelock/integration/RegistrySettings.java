package dev.fencelock.integration;

import dev.fencelock.LockClient;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * What every lock of one {@link FenceLockRegistry} shares.
 *
 * @param client the client that takes the locks
 * @param keyPrefix prefix of each lock's resource
 * @param leaseTtl lease TTL of acquisitions that ask for none; the client's default when null
 * @param fenceWrites whether a holding thread gets the lock's fence on its {@code FencingContext}
 * @param clock wall-clock milliseconds, for when a lock was last acquired
 */
record RegistrySettings(
        LockClient client, String keyPrefix, @Nullable Duration leaseTtl, boolean fenceWrites, LongSupplier clock) {

    /** Metrics and audit name of every registry lock: keys may be per message group, so never the key itself. */
    static final String LOCK_NAME = "spring-integration";
}
