package dev.fencelock.etcd;

import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What every {@link AcquireAttempt} of one backend shares, passed in rather than reached through the backend.
 *
 * @param held the locks the backend holds, by key
 * @param release gives back a lock granted to a caller that had already given up
 * @param recheckInterval how often a waiter re-reads its predecessor in case a watch event was lost
 * @param retryGrace how long a key whose put had an unknown outcome waits for a retry to adopt it
 */
record AttemptCollaborators(
        EtcdCalls calls,
        SessionLeases sessions,
        PutBatch puts,
        ResourceWatches watches,
        GuardedDeletes deletes,
        HeldKeysWatch heldKeys,
        Map<String, EtcdLock> held,
        Consumer<EtcdLock> release,
        Duration recheckInterval,
        Duration retryGrace) {}
