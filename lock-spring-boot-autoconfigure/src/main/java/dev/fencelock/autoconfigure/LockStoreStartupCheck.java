package dev.fencelock.autoconfigure;

import dev.fencelock.LockClient;
import dev.fencelock.ResourceName;
import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendHealth;
import dev.fencelock.spi.LockBackend;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Asks the lock store once, when the application has started, whether it answers, and logs a
 * warning naming the endpoints and why when it does not. Startup does not wait for the answer and
 * does not fail (etcd may come up later); without the warning, the first sign of a missing etcd
 * would be a locked call failing after its whole wait time.
 *
 * <p>When the store answers, it warms the client up: one lock on {@value #WARM_UP_RESOURCE}, taken
 * through the backend without waiting and released at once, opens the session lease of the default
 * TTL and the paths a lock takes, which the first locked call would otherwise pay for (several
 * hundred milliseconds against tens later). It goes past the client, so no meter or audit line
 * counts it.
 */
final class LockStoreStartupCheck implements SmartInitializingSingleton {

    private static final Logger logger = LoggerFactory.getLogger(LockStoreStartupCheck.class);

    /** The resource of the lock taken and released to warm the client up. */
    static final String WARM_UP_RESOURCE = "fencelock-warm-up";

    private final ObjectProvider<LockClient> client;

    private final Duration timeout;

    private volatile CompletableFuture<Void> checked = CompletableFuture.completedFuture(null);

    LockStoreStartupCheck(ObjectProvider<LockClient> client, Duration timeout) {
        this.client = client;
        this.timeout = timeout;
    }

    @Override
    public void afterSingletonsInstantiated() {
        LockClient lockClient = this.client.getIfUnique();
        if (lockClient == null || lockClient.administration().isEmpty()) {
            return;
        }
        String backend = lockClient.backend().describe();
        this.checked = lockClient
                .administration()
                .get()
                .health(this.timeout)
                .thenCompose((health) -> {
                    warnIfDown(backend, health);
                    return health.up() ? warmUp(lockClient) : CompletableFuture.completedFuture(null);
                })
                .exceptionally((failure) -> {
                    logger.warn("FenceLock could not check its lock store {} at startup", backend, failure);
                    return null;
                });
    }

    /** Takes and releases one lock through the backend; a failure only means the first call warms up itself. */
    private CompletableFuture<Void> warmUp(LockClient lockClient) {
        LockBackend backend = lockClient.backend();
        Duration ttl = lockClient.settings().defaultLeaseTtl();
        long ttlSeconds = ttl.getSeconds() + ((ttl.getNano() > 0) ? 1 : 0);
        long started = System.nanoTime();
        AcquireCommand command = new AcquireCommand(
                ResourceName.of(
                        WARM_UP_RESOURCE,
                        Math.max(
                                WARM_UP_RESOURCE.length(), lockClient.settings().maxResourceLength())),
                UUID.randomUUID().toString(),
                ttlSeconds,
                false,
                started + this.timeout.toNanos(),
                true);
        CompletableFuture<Void> warmed;
        try {
            warmed = backend.acquire(command).thenCompose(backend::release).thenAccept((deleted) -> {});
        } catch (RuntimeException ex) {
            warmed = CompletableFuture.failedFuture(ex);
        }
        return warmed.handle((ignored, failure) -> {
            long millis = (System.nanoTime() - started) / 1_000_000;
            if (failure == null) {
                logger.debug(
                        "FenceLock warmed up its lock store client in {} ms (session lease of {}s open)",
                        millis,
                        ttlSeconds);
            } else {
                logger.debug("FenceLock's warm-up lock did not go through ({} ms): {}", millis, failure.toString());
            }
            return null;
        });
    }

    private static void warnIfDown(String backend, BackendHealth health) {
        if (!health.up()) {
            logger.warn(
                    "FenceLock cannot reach its lock store {} at startup: {} Locked calls fail with"
                            + " LockBackendUnavailableException until it answers, and the 'fencelock' health"
                            + " contributor is DOWN. Start etcd (see docs/getting-started.md) or set"
                            + " fencelock.etcd.endpoints.",
                    backend,
                    health.details().getOrDefault("error", "it did not answer."));
        }
    }

    /** Completes when the check has answered and the warm-up has ended (for tests). */
    CompletableFuture<Void> checked() {
        return this.checked;
    }
}
