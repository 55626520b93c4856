package dev.fencelock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/** Keeps every event a client reports, with the thread that reported it. */
final class RecordingEventListener implements LockEventListener {

    record Event(
            String kind,
            @Nullable LockLease lease,
            String lockName,
            @Nullable Throwable cause,
            boolean reentered,
            String thread) {}

    final List<Event> events = new CopyOnWriteArrayList<>();

    @Override
    public void acquired(LockLease lease, String lockName, Duration waited, boolean reentered) {
        record("acquired", lease, lockName, null, reentered);
    }

    @Override
    public void acquireFailed(ResourceName resource, String lockName, Throwable cause, Duration waited) {
        record("acquireFailed", null, lockName, cause, false);
    }

    @Override
    public void released(LockLease lease, String lockName, Duration held, Duration took) {
        record("released", lease, lockName, null, false);
    }

    @Override
    public void renewed(LockLease lease, String lockName, Duration took, @Nullable Throwable failure) {
        record("renewed", lease, lockName, failure, false);
    }

    @Override
    public void lost(LockLease lease, String lockName, LockLostException cause) {
        record("lost", lease, lockName, cause, false);
    }

    List<Event> of(String kind) {
        return this.events.stream().filter(event -> event.kind().equals(kind)).toList();
    }

    private void record(
            String kind, @Nullable LockLease lease, String lockName, @Nullable Throwable cause, boolean reentered) {
        this.events.add(new Event(
                kind, lease, lockName, cause, reentered, Thread.currentThread().getName()));
    }
}
