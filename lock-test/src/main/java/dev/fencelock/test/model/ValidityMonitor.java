package dev.fencelock.test.model;

import dev.fencelock.LockLease;
import dev.fencelock.test.model.LockModel.Acquisition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Watches, between and during steps, that no two acquisitions of one resource are valid at the
 * same instant: the moment of a hand-over, an expiry or a fault is exactly when two holders
 * would show, and the checks after a step come too late to see it.
 *
 * <p>Validity is read twice over all leases, one pass after the other. A lease is valid over one
 * interval of time (from its grant until it is released, lost or past its deadline), so two
 * leases valid in both passes were valid together at the end of the first pass: a real overlap,
 * not two readings at different moments.
 *
 * <p>A force-released holder is exempt: it may go on believing it holds until its key's deletion
 * reaches it, which is what fencing tokens are for. The steps check that it learns.
 */
final class ValidityMonitor implements AutoCloseable {

    private record Watched(Acquisition acquisition, LockLease lease) {}

    private final List<Watched> watched = new CopyOnWriteArrayList<>();

    private final Set<Acquisition> exempt = ConcurrentHashMap.newKeySet();

    private final Thread thread;

    private volatile boolean running = true;

    private volatile @Nullable String violation;

    private volatile long samples;

    ValidityMonitor() {
        this.thread = new Thread(this::watch, "model-validity-monitor");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Watches {@code lease}, one hold of {@code acquisition}, from now on. */
    void watch(Acquisition acquisition, LockLease lease) {
        this.watched.add(new Watched(acquisition, lease));
    }

    /** {@code acquisition} is being force-released: it may stay valid until it hears of it. */
    void exempt(Acquisition acquisition, boolean exempt) {
        if (exempt) {
            this.exempt.add(acquisition);
        } else {
            this.exempt.remove(acquisition);
        }
    }

    /** The first overlap seen, or {@code null}. */
    @Nullable
    String violation() {
        return this.violation;
    }

    long samples() {
        return this.samples;
    }

    private void watch() {
        while (this.running && this.violation == null) {
            List<Watched> first = valid();
            if (first.size() > 1) {
                List<Watched> second = valid();
                second.retainAll(first);
                check(second);
            }
            this.samples++;
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private List<Watched> valid() {
        List<Watched> valid = new ArrayList<>();
        for (Watched entry : this.watched) {
            if (!this.exempt.contains(entry.acquisition()) && entry.lease().isValid()) {
                valid.add(entry);
            }
        }
        return valid;
    }

    private void check(List<Watched> bothPasses) {
        Map<String, Set<Acquisition>> byResource = new HashMap<>();
        Map<Acquisition, Long> tokens = new HashMap<>();
        for (Watched entry : bothPasses) {
            // Re-entrant holds of one acquisition share its lock: they count once.
            byResource
                    .computeIfAbsent(entry.lease().resource(), r -> new LinkedHashSet<>())
                    .add(entry.acquisition());
            tokens.put(entry.acquisition(), entry.lease().fencingToken());
        }
        byResource.forEach((resource, holders) -> {
            if (holders.size() > 1 && this.violation == null) {
                StringBuilder who = new StringBuilder();
                holders.forEach(
                        a -> who.append(' ').append(a).append(" with token ").append(tokens.get(a)));
                this.violation = "two valid holders of " + resource + " at the same time:" + who;
            }
        });
    }

    @Override
    public void close() {
        this.running = false;
        this.thread.interrupt();
        try {
            this.thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
