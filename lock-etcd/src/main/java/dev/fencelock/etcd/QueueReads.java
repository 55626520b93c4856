package dev.fencelock.etcd;

import dev.fencelock.LockMode;
import dev.fencelock.spi.LockKind;
import dev.fencelock.spi.QueueWalk;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The keys-only range reads that tell where an acquisition's key stands in its resource's queue,
 * one limited read each, chosen by the key's kind so that what the read returns is all the {@link
 * QueueWalk} rule needs:
 *
 * <ul>
 *   <li>exclusive: the resource's oldest key (limit 1), exactly the read of an exclusive lock
 *       before read-write locks existed;
 *   <li>shared: the oldest non-shared key (limit 1), from the range that holds only writers and
 *       permits ({@link LockKeys#nonSharedStart}); none means nothing but readers is ahead;
 *   <li>a semaphore of {@code n}: the oldest {@code n} keys.
 * </ul>
 *
 * The re-check of a waiter reads the same, limited to keys older than its own: the newest one (or
 * the oldest {@code n} for a semaphore). The answer is always judged on the keys older than mine,
 * so a read that also returns newer keys (an adopted key's Else branch) decides the same.
 */
final class QueueReads {

    private QueueReads() {}

    /** The read that goes with an acquisition's put (in the same Txn, after the put). */
    static ByteSequence ownerReadKey(String prefix, LockKind kind) {
        return EtcdCalls.bytes(kind.mode() == LockMode.SHARED ? LockKeys.nonSharedStart(prefix) : prefix);
    }

    static GetOption ownerRead(String prefix, LockKind kind) {
        GetOption.Builder read = range(prefix, kind)
                .withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.ASCEND)
                .withKeysOnly(true)
                .withLimit(kind.isSemaphore() ? kind.permits() : 1);
        return read.build();
    }

    /** The read of a waiter's re-check: what is left ahead of the key created at {@code revision}. */
    static GetOption aheadOf(String prefix, LockKind kind, long revision) {
        return range(prefix, kind)
                .withMaxCreateRevision(revision - 1)
                .withSortField(GetOption.SortTarget.CREATE)
                // A semaphore counts the oldest keys; a lock only needs to know whether one is left.
                .withSortOrder(kind.isSemaphore() ? GetOption.SortOrder.ASCEND : GetOption.SortOrder.DESCEND)
                .withKeysOnly(true)
                .withLimit(kind.isSemaphore() ? kind.permits() : 1)
                .build();
    }

    private static GetOption.Builder range(String prefix, LockKind kind) {
        GetOption.Builder read = GetOption.builder();
        return (kind.mode() == LockMode.SHARED)
                ? read.withRange(EtcdCalls.bytes(LockKeys.prefixEnd(prefix)))
                : read.isPrefix(true);
    }

    /**
     * Grants or refuses {@code waiter}, whose key of {@code kind} was created at {@code readFor}, by
     * what one of these reads returned; false while it waits with that key. An answer that comes
     * after the waiter put again is about a key it no longer has, and decides nothing (true).
     */
    static boolean decide(QueueWaiter waiter, LockKind kind, List<KeyValue> read, SessionLease session, long readFor) {
        if (readFor == 0 || waiter.revision() != readFor) {
            return true;
        }
        QueueWalk walk = new QueueWalk();
        kindsAhead(readFor, read).forEach(walk::next);
        switch (walk.standingOf(kind)) {
            case HOLDS -> waiter.grant(session, readFor);
            case CONFLICTS -> waiter.conflicts(Objects.requireNonNull(walk.conflictingAhead(kind)));
            case WAITS -> {
                return false;
            }
        }
        return true;
    }

    private static List<LockKind> kindsAhead(long revision, List<KeyValue> read) {
        List<KeyValue> ahead = new ArrayList<>(read.size());
        for (KeyValue kv : read) {
            if (kv.getCreateRevision() < revision) {
                ahead.add(kv);
            }
        }
        ahead.sort((a, b) -> Long.compare(a.getCreateRevision(), b.getCreateRevision()));
        List<LockKind> kinds = new ArrayList<>(ahead.size());
        ahead.forEach(kv -> kinds.add(LockKeys.kindOf(kv.getKey().toString(StandardCharsets.UTF_8))));
        return kinds;
    }
}
