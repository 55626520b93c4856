package dev.fencelock.etcd;

import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * What every {@link AcquireAttempt} of one backend shares, passed in rather than reached through the backend.
 *
 * @param held the locks the backend holds, by key
 * @param release gives back a lock granted to a caller that had already given up
 * @param anotherAttemptOfKey whether an attempt other than the given one is under way for its key
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
        Predicate<AcquireAttempt> anotherAttemptOfKey,
        Duration recheckInterval,
        Duration retryGrace) {}
