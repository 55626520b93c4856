package dev.fencelock.etcd;

import dev.fencelock.spi.AcquireCommand;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.time.Instant;

/**
 * The keys of one acquisition and the Txn pieces its put is made of, alone or in a shared Txn:
 * create my key on the session lease unless it or its abandoned marker exists, and read the
 * resource's oldest key.
 */
final class AcquisitionOps {

    final AcquireCommand command;

    final String key;

    final ByteSequence keyBytes;

    final String prefix;

    final ByteSequence markerBytes;

    private final String instanceId;

    AcquisitionOps(LockKeys keys, AcquireCommand command, String instanceId) {
        this.command = command;
        this.key = keys.key(command.resource(), command.requestId());
        this.keyBytes = EtcdCalls.bytes(this.key);
        this.prefix = keys.resourcePrefix(command.resource());
        this.markerBytes = EtcdCalls.bytes(keys.abandonedMarker(command.resource(), command.requestId()));
        this.instanceId = instanceId;
    }

    /** The put, in the If/Then form every acquisition shares when batched. */
    Cmp[] putConditions() {
        return new Cmp[] {
            new Cmp(this.keyBytes, Cmp.Op.EQUAL, CmpTarget.createRevision(0)),
            new Cmp(this.markerBytes, Cmp.Op.EQUAL, CmpTarget.createRevision(0))
        };
    }

    Op putOp(SessionLease session) {
        // Attach the lease inside a Txn: etcd 3.4's plain leased Put slows down with many keys on one lease.
        return Op.put(
                this.keyBytes,
                EtcdCalls.bytes(holderRecord()),
                PutOption.builder().withLeaseId(session.leaseId).build());
    }

    Op ownerRead() {
        return Op.get(
                EtcdCalls.bytes(this.prefix),
                GetOption.builder()
                        .isPrefix(true)
                        .withSortField(GetOption.SortTarget.CREATE)
                        .withSortOrder(GetOption.SortOrder.ASCEND)
                        .withKeysOnly(true)
                        .withLimit(1)
                        .build());
    }

    /** Reads the predecessor of the key created at {@code revision}: the newest key of the resource older than it. */
    Op predecessorRead(long revision) {
        return Op.get(
                EtcdCalls.bytes(this.prefix),
                GetOption.builder()
                        .isPrefix(true)
                        .withMaxCreateRevision(revision - 1)
                        .withSortField(GetOption.SortTarget.CREATE)
                        .withSortOrder(GetOption.SortOrder.DESCEND)
                        .withKeysOnly(true)
                        .withLimit(1)
                        .build());
    }

    private String holderRecord() {
        return "{\"instance\":\"" + jsonEscape(this.instanceId) + "\",\"acquiredAt\":\"" + Instant.now()
                + "\",\"ttlSeconds\":" + this.command.ttlSeconds() + "}";
    }

    private static String jsonEscape(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
