package dev.fencelock.etcd;

import dev.fencelock.spi.LockKind;
import org.jspecify.annotations.Nullable;

/** A queue waiter that counts what it was told, for deciders fed without etcd. */
final class RecordingWaiter implements QueueWaiter {

    private final long revision;

    private final @Nullable SessionLease session;

    int grants;

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
    public void grant(SessionLease session) {
        this.grants++;
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
