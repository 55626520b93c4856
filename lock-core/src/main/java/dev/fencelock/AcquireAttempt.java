package dev.fencelock;

import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.LockKind;
import java.time.Duration;
import java.util.UUID;

/**
 * A request checked against a client's settings: the bounded command for the backend, the lock
 * name its events carry, and whether it is a poll ({@link LockRequest#poll()}).
 */
record AcquireAttempt(AcquireCommand command, String lockName, boolean poll) {

    /**
     * Validates and bounds {@code request}; without {@code wait} it becomes a try-lock whose wait
     * timeout is ignored.
     *
     * @throws InvalidLockKeyException when the resource name or request id is not valid
     * @throws IllegalArgumentException when the lease TTL or wait timeout is out of bounds
     */
    static AcquireAttempt of(LockRequest request, LockClientSettings settings, boolean wait) {
        ResourceName resource = ResourceName.of(request.resource(), settings.maxResourceLength());
        Duration waitTimeout = wait ? settings.waitTimeout(request.waitTimeout(), resource) : Duration.ZERO;
        boolean queue = !waitTimeout.isZero();
        // A try-lock still needs time for its round trip; a waiting lock gets exactly its wait timeout.
        Duration budget = queue ? waitTimeout : settings.tryTimeout();
        return of(request, resource, settings, queue, System.nanoTime() + budget.toNanos());
    }

    /**
     * Validates and bounds {@code request} for an attempt that ends by {@code deadlineNanos}, one
     * deadline shared with other attempts; {@code queue} says whether it waits for a busy lock.
     */
    static AcquireAttempt of(
            LockRequest request,
            ResourceName resource,
            LockClientSettings settings,
            boolean queue,
            long deadlineNanos) {
        boolean generated = request.requestId() == null;
        String requestId = generated ? UUID.randomUUID().toString() : validateRequestId(request.requestId(), resource);
        long ttlSeconds = settings.ttlSeconds(request.leaseTtl(), resource);
        String lockName = (request.lockName() != null) ? request.lockName() : LockEventListener.UNNAMED;
        LockKind kind = (request.permits() > 1) ? LockKind.permits(request.permits()) : kindOf(request.mode());
        return new AcquireAttempt(
                new AcquireCommand(resource, requestId, ttlSeconds, queue, deadlineNanos, generated, kind),
                lockName,
                request.poll());
    }

    /**
     * Whether {@code failure} is a poll's routine end: the lock stayed busy, or the wait ran out
     * before the store answered. Listeners are not told of it.
     */
    boolean endedAsPoll(Throwable failure) {
        if (!this.poll) {
            return false;
        }
        return failure instanceof LockAcquisitionTimeoutException
                || (failure instanceof LockBackendUnavailableException && this.command.remainingNanos() == 0);
    }

    private static LockKind kindOf(LockMode mode) {
        return (mode == LockMode.SHARED) ? LockKind.SHARED : LockKind.EXCLUSIVE;
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
