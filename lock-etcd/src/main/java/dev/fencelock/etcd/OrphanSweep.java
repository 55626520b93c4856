package dev.fencelock.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.LeaseOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Now and then lists the keys on each live session lease and deletes the lock keys that this
 * backend neither holds nor is acquiring: a put that reached etcd after its acquisition gave up
 * and its abandon marker expired, or any other key left behind. Without it such a key would block
 * its resource for as long as the session lives, which may be the life of the process.
 */
final class OrphanSweep {

    private static final Logger logger = LoggerFactory.getLogger(OrphanSweep.class);

    private final EtcdCalls calls;

    private final SessionLeases sessions;

    private final GuardedDeletes deletes;

    private final Map<String, EtcdLock> held;

    private final String locksPrefix;

    /** Whether an acquisition of this backend is under way for a key. */
    private final Predicate<String> acquiring;

    private final Duration interval;

    OrphanSweep(
            EtcdCalls calls,
            SessionLeases sessions,
            GuardedDeletes deletes,
            Map<String, EtcdLock> held,
            String locksPrefix,
            Predicate<String> acquiring,
            Duration interval) {
        this.calls = calls;
        this.sessions = sessions;
        this.deletes = deletes;
        this.held = held;
        this.locksPrefix = locksPrefix;
        this.acquiring = acquiring;
        this.interval = interval;
    }

    void start() {
        this.calls
                .scheduler()
                .scheduleWithFixedDelay(
                        this::sweep, this.interval.toNanos(), this.interval.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void sweep() {
        if (this.calls.isClosed()) {
            return;
        }
        for (SessionLease session : this.sessions.live().values()) {
            this.calls
                    .timed(
                            () -> this.calls
                                    .client()
                                    .getLeaseClient()
                                    .timeToLive(
                                            session.leaseId,
                                            LeaseOption.builder()
                                                    .withAttachedKeys()
                                                    .build()),
                            "listing the keys of lease " + session.leaseId)
                    .whenComplete((response, failure) -> {
                        if (failure != null) {
                            logger.debug("Sweep of lease {} failed: {}", session.leaseId, failure.toString());
                            return;
                        }
                        for (ByteSequence keyBytes : response.getKeys()) {
                            String key = keyBytes.toString(StandardCharsets.UTF_8);
                            if (key.startsWith(this.locksPrefix) && !this.held.containsKey(key)) {
                                inspect(key, session);
                            }
                        }
                    });
        }
    }

    /** Reads a candidate key for its create revision and deletes it if it is still nobody's here. */
    private void inspect(String key, SessionLease session) {
        this.calls
                .timed(() -> this.calls.client().getKVClient().get(EtcdCalls.bytes(key)), "reading '" + key + "'")
                .whenComplete((response, failure) -> {
                    if (failure != null) {
                        return;
                    }
                    for (KeyValue kv : response.getKvs()) {
                        if (kv.getLease() == session.leaseId) {
                            logger.debug("Deleting lock key {} that nobody here holds", key);
                            this.deletes.deleteUnlessBusy(
                                    key, kv.getCreateRevision(), session, () -> this.acquiring.test(key));
                        }
                    }
                });
    }
}
