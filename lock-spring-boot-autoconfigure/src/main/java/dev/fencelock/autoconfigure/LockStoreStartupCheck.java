package dev.fencelock.autoconfigure;

import dev.fencelock.LockClient;
import dev.fencelock.spi.BackendHealth;
import java.time.Duration;
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
 */
final class LockStoreStartupCheck implements SmartInitializingSingleton {

    private static final Logger logger = LoggerFactory.getLogger(LockStoreStartupCheck.class);

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
                .thenAccept((health) -> warnIfDown(backend, health))
                .exceptionally((failure) -> {
                    logger.warn("FenceLock could not check its lock store {} at startup", backend, failure);
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

    /** Completes when the check has answered (for tests). */
    CompletableFuture<Void> checked() {
        return this.checked;
    }
}
