package dev.fencelock;

import dev.fencelock.spi.AcquireCommand;
import java.time.Duration;
import java.util.UUID;

/**
 * A request checked against a client's settings: the bounded command for the backend, and the
 * lock name its events carry.
 */
record AcquireAttempt(AcquireCommand command, String lockName) {

    /**
     * Validates and bounds {@code request}; without {@code wait} it becomes a try-lock whose wait
     * timeout is ignored.
     *
     * @throws InvalidLockKeyException when the resource name or request id is not valid
     * @throws IllegalArgumentException when the lease TTL or wait timeout is out of bounds
     */
    static AcquireAttempt of(LockRequest request, LockClientSettings settings, boolean wait) {
        ResourceName resource = ResourceName.of(request.resource(), settings.maxResourceLength());
        boolean generated = request.requestId() == null;
        String requestId = generated ? UUID.randomUUID().toString() : validateRequestId(request.requestId(), resource);
        long ttlSeconds = settings.ttlSeconds(request.leaseTtl(), resource);
        Duration waitTimeout = wait ? settings.waitTimeout(request.waitTimeout(), resource) : Duration.ZERO;
        boolean queue = !waitTimeout.isZero();
        // A try-lock still needs time for its round trip; a waiting lock gets exactly its wait timeout.
        Duration budget = queue ? waitTimeout : settings.tryTimeout();
        long deadline = System.nanoTime() + budget.toNanos();
        String lockName = (request.lockName() != null) ? request.lockName() : LockEventListener.UNNAMED;
        return new AcquireAttempt(
                new AcquireCommand(resource, requestId, ttlSeconds, queue, deadline, generated), lockName);
    }

    private static String validateRequestId(String requestId, ResourceName resource) {
        if (requestId.isEmpty() || requestId.length() > 128) {
            throw new InvalidLockKeyException(
                    "Request id for lock '" + resource + "' must have 1 to 128 characters, got " + requestId.length());
        }
        for (int i = 0; i < requestId.length(); i++) {
            char c = requestId.charAt(i);
            if (c < 0x21 || c > 0x7e) {
                throw new InvalidLockKeyException("Request id for lock '" + resource
                        + "' may contain only printable ASCII characters without spaces");
            }
        }
        return requestId;
    }
}
