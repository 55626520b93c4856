package dev.fencelock.etcd;

import dev.fencelock.spi.AcquireCommand;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/**
 * The keys of one acquisition and the Txn pieces its put is made of, alone or in a shared Txn:
 * create my key on the session lease unless it or its abandoned marker exists, and read what
 * decides whether it holds (for an exclusive lock, the resource's oldest key).
 */
final class AcquisitionOps {

    final AcquireCommand command;

    final String key;

    final ByteSequence keyBytes;

    final String prefix;

    private final LockKeys keys;

    private final String instanceId;

    AcquisitionOps(LockKeys keys, AcquireCommand command, String instanceId) {
        this.command = command;
        this.key = keys.key(command.resource(), command.requestId(), command.kind());
        this.keyBytes = EtcdCalls.bytes(this.key);
        this.prefix = keys.resourcePrefix(command.resource());
        this.keys = keys;
        this.instanceId = instanceId;
    }

    /** The put, in the If/Then form every acquisition shares when batched. */
    Cmp[] putConditions(SessionLease session) {
        return new Cmp[] {
            new Cmp(this.keyBytes, Cmp.Op.EQUAL, CmpTarget.createRevision(0)),
            new Cmp(markerBytes(session), Cmp.Op.EQUAL, CmpTarget.createRevision(0))
        };
    }

    /** The marker with which {@code session} abandons this request when its put's outcome is unknown. */
    ByteSequence markerBytes(SessionLease session) {
        return EtcdCalls.bytes(this.keys.abandonedMarker(
                this.command.resource(), this.command.requestId(), this.command.kind(), session.leaseId));
    }

    Op putOp(SessionLease session) {
        // Attach the lease inside a Txn: etcd 3.4's plain leased Put slows down with many keys on one lease.
        return Op.put(
                this.keyBytes,
                EtcdCalls.bytes(holderRecord()),
                PutOption.builder().withLeaseId(session.leaseId).build());
    }

    /**
     * A re-check while waiting: if my key still has {@code revision}, read what is left ahead of it
     * (for an exclusive lock, its predecessor); fails the compare once my key is gone.
     */
    CompletableFuture<TxnResponse> readAhead(Client client, long revision) {
        return client.getKVClient()
                .txn()
                .If(new Cmp(this.keyBytes, Cmp.Op.EQUAL, CmpTarget.createRevision(revision)))
                .Then(Op.get(
                        QueueReads.ownerReadKey(this.prefix, this.command.kind()),
                        QueueReads.aheadOf(this.prefix, this.command.kind(), revision)))
                .commit();
    }

    /** The read that tells whether my key holds ({@link QueueReads}); for an exclusive lock, the oldest key. */
    Op ownerRead() {
        return Op.get(
                QueueReads.ownerReadKey(this.prefix, this.command.kind()),
                QueueReads.ownerRead(this.prefix, this.command.kind()));
    }

    /** The lock this acquisition holds once its key, created at {@code revision} on {@code session}, is the owner. */
    EtcdLock lock(SessionLease session, long revision) {
        if (revision <= 0) {
            // Its revision is the lock's fencing token: a lock without a known key must never be handed out.
            throw new IllegalStateException(
                    "Lock '" + this.command.resource() + "' granted without its key's revision");
        }
        return new EtcdLock(
                this.command.resource(), this.command.requestId(), this.key, session, revision, this.command.kind());
    }

    /** What an abandon marker says: which instance gave the request up. */
    ByteSequence markerRecord() {
        return EtcdCalls.bytes(
                "{\"instance\":\"" + jsonEscape(this.instanceId) + "\",\"abandonedAt\":\"" + Instant.now() + "\"}");
    }

    private String holderRecord() {
        return "{\"instance\":\"" + jsonEscape(this.instanceId) + "\",\"acquiredAt\":\"" + Instant.now()
                + "\",\"ttlSeconds\":" + this.command.ttlSeconds() + "}";
    }

    private static String jsonEscape(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
