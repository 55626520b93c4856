package dev.fencelock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Fans events out to several listeners; a listener that throws is logged and skipped. */
final class CompositeLockEventListener implements LockEventListener {

    private static final Logger logger = LoggerFactory.getLogger(CompositeLockEventListener.class);

    private final List<LockEventListener> listeners = new ArrayList<>();

    CompositeLockEventListener(Iterable<? extends LockEventListener> listeners) {
        listeners.forEach(this.listeners::add);
    }

    private void each(Consumer<LockEventListener> call) {
        for (LockEventListener listener : this.listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException ex) {
                logger.warn("Lock event listener {} failed", listener, ex);
            }
        }
    }

    @Override
    public void acquired(LockLease lease, String lockName, Duration waited, boolean reentered) {
        each(listener -> listener.acquired(lease, lockName, waited, reentered));
    }

    @Override
    public void acquireFailed(ResourceName resource, String lockName, Throwable cause, Duration waited) {
        each(listener -> listener.acquireFailed(resource, lockName, cause, waited));
    }

    @Override
    public void acquireFailed(
            ResourceName resource, String lockName, Throwable cause, Duration waited, boolean queued) {
        each(listener -> listener.acquireFailed(resource, lockName, cause, waited, queued));
    }

    @Override
    public void released(LockLease lease, String lockName, Duration held, Duration took) {
        each(listener -> listener.released(lease, lockName, held, took));
    }

    @Override
    public void released(LockLease lease, String lockName, Duration held, Duration took, boolean alreadyGone) {
        each(listener -> listener.released(lease, lockName, held, took, alreadyGone));
    }

    @Override
    public void renewed(LockLease lease, String lockName, Duration took, @Nullable Throwable failure) {
        each(listener -> listener.renewed(lease, lockName, took, failure));
    }

    @Override
    public void lost(LockLease lease, String lockName, LockLostException cause) {
        each(listener -> listener.lost(lease, lockName, cause));
    }

    @Override
    public void lostAfterCommit(LockLease lease, String lockName) {
        each(listener -> listener.lostAfterCommit(lease, lockName));
    }
}
