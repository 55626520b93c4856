package dev.fencelock.etcd;

import dev.fencelock.spi.LockKind;
import org.jspecify.annotations.Nullable;

/** A queue waiter that counts what it was told, for deciders fed without etcd. */
final class RecordingWaiter implements QueueWaiter {

    /** The create revision of the waiter's key: 0 while it puts again, another once that put answered. */
    volatile long revision;

    private final @Nullable SessionLease session;

    int grants;

    int staleGrants;

    int gone;

    int failed;

    int conflicts;

    RecordingWaiter(long revision) {
        this(revision, new SessionLease(revision, 30, 30, System.nanoTime()));
    }

    RecordingWaiter(long revision, @Nullable SessionLease session) {
        this.revision = revision;
        this.session = session;
    }

    @Override
    public long revision() {
        return this.revision;
    }

    @Override
    public @Nullable SessionLease session() {
        return this.session;
    }

    @Override
    public void grant(SessionLease session, long revision) {
        if (revision == this.revision) {
            this.grants++; // as an acquisition does: a decision about a key it no longer has is ignored
        } else {
            this.staleGrants++;
        }
    }

    @Override
    public void conflicts(LockKind ahead) {
        this.conflicts++;
    }

    @Override
    public void queueEntryGone() {
        this.gone++;
    }

    @Override
    public void watchFailed() {
        this.failed++;
    }
}
