package dev.fencelock.zookeeper;

import dev.fencelock.ResourceName;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockKind;

/**
 * One acquisition's node, from the moment it is created: while it waits and once it holds. Its
 * validity is its session's; its fencing token the node's creation zxid.
 */
final class ZooKeeperLock extends BackendLock {

    final ZooKeeperSession session;

    /** The node's full path, sequence number included: no other acquisition ever has it. */
    final String path;

    ZooKeeperLock(
            ResourceName resource, String requestId, ZooKeeperSession session, String path, long czxid, LockKind kind) {
        super(resource, requestId, session.sessionId(), czxid, kind);
        this.session = session;
        this.path = path;
    }

    @Override
    public long validUntilNanos() {
        return this.session.validUntilNanos();
    }
}
