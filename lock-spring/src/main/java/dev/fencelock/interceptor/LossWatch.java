package dev.fencelock.interceptor;

import dev.fencelock.LockLease;
import dev.fencelock.LockLostException;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Remembers whether a lease was lost during one locked call and, while the method still runs on
 * its calling thread, interrupts that thread so blocking work stops early. Lease listeners cannot
 * be removed, so the watch is detached instead: a loss after the call no longer interrupts a
 * thread that has moved on to other work.
 */
final class LossWatch implements BiConsumer<LockLease, LockLostException> {

    private final boolean interrupt;

    private @Nullable Thread thread;

    private @Nullable LockLostException cause;

    private @Nullable LockLease lost;

    private boolean interrupted;

    LossWatch(Thread thread, boolean interrupt) {
        this.thread = thread;
        this.interrupt = interrupt;
    }

    @Override
    public synchronized void accept(LockLease lease, LockLostException cause) {
        if (this.cause == null) {
            this.cause = cause;
            this.lost = lease;
        }
        if (this.interrupt && this.thread != null) {
            this.interrupted = true;
            this.thread.interrupt();
        }
    }

    /** Stops interrupting; returns whether this watch interrupted the thread. */
    synchronized boolean detach() {
        this.thread = null;
        return this.interrupted;
    }

    synchronized @Nullable LockLostException cause() {
        return this.cause;
    }

    /** The first lease reported lost, or {@code null}. */
    synchronized @Nullable LockLease lost() {
        return this.lost;
    }
}
