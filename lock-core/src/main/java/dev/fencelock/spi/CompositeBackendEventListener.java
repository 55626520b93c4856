package dev.fencelock.spi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Fans backend events out to several listeners; a listener that throws is logged and skipped. */
final class CompositeBackendEventListener implements BackendEventListener {

    private static final Logger logger = LoggerFactory.getLogger(CompositeBackendEventListener.class);

    private final List<BackendEventListener> listeners = new ArrayList<>();

    CompositeBackendEventListener(Iterable<? extends BackendEventListener> listeners) {
        listeners.forEach(this.listeners::add);
    }

    private void each(Consumer<BackendEventListener> call) {
        for (BackendEventListener listener : this.listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException ex) {
                logger.warn("Backend event listener {} failed", listener, ex);
            }
        }
    }

    @Override
    public void committed(WriteOperation operation, Duration took) {
        each(listener -> listener.committed(operation, took));
    }

    @Override
    public void leaderChanged(long previousTerm, long term) {
        each(listener -> listener.leaderChanged(previousTerm, term));
    }

    @Override
    public void leaderLost(Duration since) {
        each(listener -> listener.leaderLost(since));
    }

    @Override
    public void leaderFound(Duration withoutLeader) {
        each(listener -> listener.leaderFound(withoutLeader));
    }

    @Override
    public void leaseExpired(int locks) {
        each(listener -> listener.leaseExpired(locks));
    }

    @Override
    public void renewalFailed(Throwable cause) {
        each(listener -> listener.renewalFailed(cause));
    }

    @Override
    public void capacityChecked(StoreCapacity capacity) {
        each(listener -> listener.capacityChecked(capacity));
    }
}
