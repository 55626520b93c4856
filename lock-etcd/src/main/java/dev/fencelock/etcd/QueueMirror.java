package dev.fencelock.etcd;

import dev.fencelock.spi.LockKind;
import dev.fencelock.spi.QueueWalk;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
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
 * {@code c} holds the lock once the mirror has reached {@code c} and nothing that keeps it out is
 * left ahead of it by the {@link QueueWalk} rule (for an exclusive lock: no older key at all):
 * keys are only ever created with newer revisions, so what is ahead of a key only shrinks. That is
 * the same decision the re-check's read makes, without the read.
 */
final class QueueMirror {

    /** Local waiters by the create revision of their key; one resource never has two keys per revision. */
    private final Map<Long, QueueWaiter> waiters = new HashMap<>();

    /** The resource's keys by create revision. */
    private final NavigableMap<Long, String> queue = new TreeMap<>();

    private final Map<String, Long> createRevisions = new HashMap<>();

    /** What each key of the queue asks for, by create revision, as its key says. */
    private final Map<Long, LockKind> kinds = new HashMap<>();

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
     * The first local waiter that holds the lock once the holder with revision {@code holder} is
     * gone, if its own key still exists then: one that waits with the holder in the mirror and
     * holds without it. Keys ahead of it only disappear after the mirror's revision, so if its key
     * exists when the release commits, it holds then.
     */
    synchronized @Nullable Successor successorOf(long holder) {
        if (this.closed || this.revision < 0 || !this.queue.containsKey(holder)) {
            return null;
        }
        QueueWalk with = new QueueWalk();
        QueueWalk without = new QueueWalk();
        for (Map.Entry<Long, String> entry : this.queue.entrySet()) {
            LockKind kind = this.kinds.get(entry.getKey());
            QueueWalk.Standing before = with.next(kind);
            if (entry.getKey() == holder) {
                continue;
            }
            if (without.next(kind) != QueueWalk.Standing.HOLDS) {
                return null; // nobody behind a key that does not hold can hold
            }
            QueueWaiter waiter = this.waiters.get(entry.getKey());
            if (before != QueueWalk.Standing.HOLDS && waiter != null) {
                return new Successor(entry.getValue(), entry.getKey(), waiter);
            }
        }
        return null;
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
        LockKind kind = this.kinds.get(mine);
        QueueWalk walk = new QueueWalk();
        if (kind.isExclusive()) {
            // Only the oldest key matters to an exclusive key: it holds if that is itself.
            long first = this.queue.firstKey();
            if (first != mine) {
                walk.next(this.kinds.get(first));
            }
        } else {
            this.queue.headMap(mine, false).keySet().forEach(ahead -> walk.next(this.kinds.get(ahead)));
        }
        return decision(waiter, mine, kind, walk);
    }

    /** What {@code waiter}, with a key of {@code kind} behind the keys {@code walk} has seen, is told. */
    private static @Nullable Runnable decision(QueueWaiter waiter, long mine, LockKind kind, QueueWalk walk) {
        switch (walk.standingOf(kind)) {
            case HOLDS -> {
                SessionLease session = waiter.session();
                return (session != null) ? () -> waiter.grant(session, mine) : null;
            }
            case CONFLICTS -> {
                LockKind ahead = Objects.requireNonNull(walk.conflictingAhead(kind));
                return () -> waiter.conflicts(ahead);
            }
            default -> {
                return null;
            }
        }
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
                this.kinds.remove(created);
            }
        }
        this.revision = Math.max(this.revision, at);
    }

    private void add(String key, long createRevision) {
        if (this.createRevisions.putIfAbsent(key, createRevision) == null) {
            this.queue.put(createRevision, key);
            this.kinds.put(createRevision, LockKeys.kindOf(key));
        }
    }

    /** One walk down the queue decides for every local waiter the mirror has seen. */
    private void decideAll(List<Runnable> decisions) {
        QueueWalk walk = new QueueWalk();
        for (long created : this.queue.keySet()) {
            LockKind kind = this.kinds.get(created);
            QueueWaiter waiter = this.waiters.get(created);
            if (waiter != null) {
                Runnable decision = decision(waiter, created, kind, walk);
                if (decision != null) {
                    decisions.add(decision);
                }
            }
            if (walk.next(kind) == QueueWalk.Standing.WAITS) {
                break; // behind a key that waits, every key waits or conflicts; the latter learn it at the front
            }
        }
        for (QueueWaiter waiter : this.waiters.values()) {
            long mine = waiter.revision();
            if (this.revision >= mine && !this.queue.containsKey(mine)) {
                decisions.add(waiter::queueEntryGone);
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
