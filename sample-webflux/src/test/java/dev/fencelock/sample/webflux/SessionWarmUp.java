package dev.fencelock.sample.webflux;

import static org.awaitility.Awaitility.await;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import java.time.Duration;

/**
 * Waits until the application's lock client can take a lock, before a test's requests: opening the
 * etcd connection and session, or reconnecting after a cut link, takes seconds on a busy machine.
 */
final class SessionWarmUp {

    private SessionWarmUp() {}

    static void awaitLocking(LockClient locks) {
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
            try (LockLease lease = locks.acquire(LockRequest.builder("warm-up")
                    .waitTimeout(Duration.ofSeconds(5))
                    .build())) {
                return lease.isValid();
            }
        });
    }
}
