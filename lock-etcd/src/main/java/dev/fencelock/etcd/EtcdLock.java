package dev.fencelock.etcd;

import dev.fencelock.ResourceName;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockKind;

/** A lock held through etcd: its key, and the session lease whose validity is its own. */
final class EtcdLock extends BackendLock {

    final String key;

    final SessionLease session;

    EtcdLock(
            ResourceName resource,
            String requestId,
            String key,
            SessionLease session,
            long createRevision,
            LockKind kind) {
        super(resource, requestId, session.leaseId, createRevision, kind);
        this.key = key;
        this.session = session;
    }

    @Override
    public long validUntilNanos() {
        return this.session.validUntilNanos();
    }
}
