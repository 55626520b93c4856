package dev.fencelock;

import dev.fencelock.spi.BackendLock;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/** Acquisition state shared by all re-entrant holds of one backend lock. */
final class Acquisition {

    private final BackendLock lock;

    private final String lockName;

    private final Instant acquiredAt = Instant.now();

    private final long acquiredNanos = System.nanoTime();

    /** Open holds; -1 once the last one was dropped, so the acquisition can never be re-entered. */
    private int holds;

    /** Completes once the release that followed the last hold was handed to the backend. */
    private final CompletableFuture<Void> releaseHandedOver = new CompletableFuture<>();

    Acquisition(BackendLock lock, String lockName) {
        this.lock = lock;
        this.lockName = lockName;
    }

    BackendLock lock() {
        return this.lock;
    }

    String lockName() {
        return this.lockName;
    }

    Instant acquiredAt() {
        return this.acquiredAt;
    }

    long acquiredNanos() {
        return this.acquiredNanos;
    }

    /** Adds a hold; {@code false} if the last hold was already released. */
    synchronized boolean addHold() {
        if (this.holds < 0) {
            return false;
        }
        this.holds++;
        return true;
    }

    synchronized int holds() {
        return Math.max(this.holds, 0);
    }

    /** Whether the last hold was dropped: the lock is being released and never held again. */
    synchronized boolean isEmptied() {
        return this.holds < 0;
    }

    CompletableFuture<Void> releaseHandedOver() {
        return this.releaseHandedOver;
    }

    /** Drops one hold; returns whether it was the last one. */
    synchronized boolean dropHold() {
        this.holds--;
        if (this.holds == 0) {
            this.holds = -1;
            return true;
        }
        return false;
    }
}
