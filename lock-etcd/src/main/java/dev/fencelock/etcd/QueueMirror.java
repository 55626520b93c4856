package dev.fencelock.etcd;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The mirror of one resource's queue that its {@link ResourceWatch} maintains, and the decisions it
 * makes for the local waiters subscribed to it. Holds no connection: it is fed the watch's
 * responses and the seeding read, and hands back what to run, outside its lock.
 *
 * <p>One linearizable read of the resource's keys at revision {@code S} seeds the mirror; events
 * up to {@code S} are already in it and are skipped, later ones are applied in order. From then on
 * the mirror is the exact queue as of the newest event seen. A waiter whose key has revision
 * {@code c} owns the lock once the mirror has reached {@code c} and no key older than {@code c} is
 * left: keys are only ever created with newer revisions, so an older key can never come back. That
 * is the same decision the predecessor read makes, without the read.
 */
final class QueueMirror {

    /** Local waiters by the create revision of their key; one resource never has two keys per revision. */
    private final Map<Long, QueueWaiter> waiters = new HashMap<>();

    /** The resource's keys by create revision. */
    private final NavigableMap<Long, String> queue = new TreeMap<>();

    private final Map<String, Long> createRevisions = new HashMap<>();

    /** Events that arrived before the seeding read answered. */
    private @Nullable List<WatchEvent> early = new ArrayList<>();

    /** Revision of the seeding read; events at or before it are in the mirror already. */
    private long seededAt = -1;

    /** The mirror is the queue as of this revision; -1 until seeded. */
    private long revision = -1;

    private boolean confirmed;

    private boolean closed;

    QueueMirror(QueueWaiter first) {
        this.waiters.put(first.revision(), first);
    }

    synchronized boolean isClosed() {
        return this.closed;
    }

    synchronized boolean isSeeded() {
        return this.revision >= 0;
    }

    synchronized boolean isSeededAndOpen() {
        return this.revision >= 0 && !this.closed;
    }

    /**
     * The local waiter that owns the lock once the holder with revision {@code holder} is gone
     * and its own key still exists: the next key, if the mirror shows no other older key.
     */
    synchronized @Nullable Successor successorOf(long holder) {
        if (this.closed || this.revision < 0 || this.queue.isEmpty() || this.queue.firstKey() != holder) {
            return null;
        }
        Map.Entry<Long, String> next = this.queue.higherEntry(holder);
        QueueWaiter waiter = (next != null) ? this.waiters.get(next.getKey()) : null;
        return (waiter != null) ? new Successor(next.getValue(), next.getKey(), waiter) : null;
    }

    /** Adds a waiter; false once the mirror is closed (the waiter then needs a new one). */
    synchronized boolean subscribe(QueueWaiter waiter) {
        if (this.closed) {
            return false;
        }
        this.waiters.put(waiter.revision(), waiter);
        return true;
    }

    /** Removes a waiter; returns whether it was the last, which closes the mirror. */
    synchronized boolean unsubscribe(QueueWaiter waiter) {
        this.waiters.remove(waiter.revision(), waiter);
        boolean last = this.waiters.isEmpty() && !this.closed;
        if (last) {
            this.closed = true;
        }
        return last;
    }

    /** Grants {@code waiter} or reports its key gone, if the mirror can already tell. */
    void decide(QueueWaiter waiter) {
        Runnable decision;
        synchronized (this) {
            decision = decisionFor(waiter);
        }
        if (decision != null) {
            decision.run();
        }
    }

    private @Nullable Runnable decisionFor(QueueWaiter waiter) {
        long mine = waiter.revision();
        if (this.closed || this.revision < mine || this.waiters.get(mine) != waiter) {
            return null; // the mirror has not seen my key yet, or I no longer wait here
        }
        if (!this.queue.containsKey(mine)) {
            return waiter::queueEntryGone;
        }
        if (this.queue.firstKey() == mine) {
            SessionLease session = waiter.session();
            return (session != null) ? () -> waiter.grant(session) : null;
        }
        return null;
    }

    /**
     * Takes one watch response: applies its events (or buffers them until the seeding read answers)
     * and adds the decisions they allow to {@code decisions}.
     *
     * @return whether this response confirmed the watch, so the queue should now be read to seed
     */
    synchronized boolean onResponse(boolean createdNotify, List<WatchEvent> events, List<Runnable> decisions) {
        if (this.closed) {
            return false;
        }
        boolean seed = false;
        if (createdNotify && !this.confirmed) {
            this.confirmed = true;
            seed = true;
        }
        if (this.early != null) {
            this.early.addAll(events);
        } else if (!events.isEmpty()) {
            events.forEach(this::apply);
            decideAll(decisions);
        }
        return seed;
    }

    /**
     * Seeds the mirror from a read of the whole queue at {@code readRevision}, applies the events
     * that arrived meanwhile, and adds the decisions this allows to {@code decisions}.
     */
    synchronized void seed(long readRevision, List<KeyValue> keys, List<Runnable> decisions) {
        if (this.closed) {
            return;
        }
        this.seededAt = readRevision;
        this.revision = this.seededAt;
        for (KeyValue kv : keys) {
            add(kv.getKey().toString(StandardCharsets.UTF_8), kv.getCreateRevision());
        }
        List<WatchEvent> buffered = this.early;
        this.early = null;
        if (buffered != null) {
            buffered.forEach(this::apply);
        }
        decideAll(decisions);
    }

    private void apply(WatchEvent event) {
        KeyValue kv = event.getKeyValue();
        long at = kv.getModRevision();
        if (at <= this.seededAt) {
            return; // the seeding read saw this already
        }
        String key = kv.getKey().toString(StandardCharsets.UTF_8);
        if (event.getEventType() == WatchEvent.EventType.PUT) {
            add(key, kv.getCreateRevision());
        } else if (event.getEventType() == WatchEvent.EventType.DELETE) {
            Long created = this.createRevisions.remove(key);
            if (created != null) {
                this.queue.remove(created);
            }
        }
        this.revision = Math.max(this.revision, at);
    }

    private void add(String key, long createRevision) {
        if (this.createRevisions.putIfAbsent(key, createRevision) == null) {
            this.queue.put(createRevision, key);
        }
    }

    private void decideAll(List<Runnable> decisions) {
        for (QueueWaiter waiter : this.waiters.values()) {
            Runnable decision = decisionFor(waiter);
            if (decision != null) {
                decisions.add(decision);
            }
        }
    }

    /**
     * Closes the mirror because its watch failed; returns the waiters it can no longer decide for,
     * or {@code null} if it was closed already.
     */
    synchronized @Nullable List<QueueWaiter> fail() {
        if (this.closed) {
            return null;
        }
        this.closed = true;
        List<QueueWaiter> orphaned = new ArrayList<>(this.waiters.values());
        this.waiters.clear();
        return orphaned;
    }
}
