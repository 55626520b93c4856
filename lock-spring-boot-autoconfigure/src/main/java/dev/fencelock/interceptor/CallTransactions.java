package dev.fencelock.interceptor;

import dev.fencelock.LockLostException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The transactions that began and ended on its thread while one {@code @DistributedLock} call ran,
 * as {@link CallTransactionListener} reports them. When the lock is lost, they decide what the
 * caller is told: work that committed while the lock was still held is done, and reporting it as
 * failed would invite a retry that does it twice.
 *
 * <p>Each locked call on the thread keeps its own record, so an outer call also sees the
 * transactions of the locked calls nested in it.
 */
final class CallTransactions {

    private static final ThreadLocal<Deque<CallTransactions>> CALLS = new ThreadLocal<>();

    /** How a transaction ended. */
    enum Ending {
        COMMITTED,
        ROLLED_BACK,
        UNKNOWN
    }

    private final CallLocks locks;

    private final String description;

    /** Transactions begun during the call and not ended yet, by identity. */
    private final Set<Object> open = Collections.newSetFromMap(new IdentityHashMap<>());

    private int committed;

    /** Committed transactions that were not read-only. */
    private int committedWrites;

    private int rolledBack;

    private int unknown;

    private @Nullable Ending last;

    private @Nullable Throwable unknownCause;

    private CallTransactions(CallLocks locks, String description) {
        this.locks = locks;
        this.description = description;
    }

    /**
     * Starts recording for a call that runs under {@code locks}; {@link #close()} stops it.
     *
     * @param description the lock and method ("lock 'x' (...) of M"), for the error that refuses a commit
     */
    static CallTransactions open(CallLocks locks, String description) {
        CallTransactions call = new CallTransactions(locks, description);
        Deque<CallTransactions> calls = CALLS.get();
        if (calls == null) {
            calls = new ArrayDeque<>(2);
            CALLS.set(calls);
        }
        calls.addLast(call);
        return call;
    }

    /** Stops recording: transactions that begin after this belong to whatever call encloses this one. */
    void close() {
        Deque<CallTransactions> calls = CALLS.get();
        if (calls != null) {
            calls.removeLastOccurrence(this);
            if (calls.isEmpty()) {
                CALLS.remove();
            }
        }
    }

    /** A transaction began on this thread: every locked call running here records it. */
    static void begun(Object transaction) {
        for (CallTransactions call : running()) {
            call.add(transaction);
        }
    }

    /**
     * A transaction is about to commit: refused when the lock of a call that began it is known to be
     * lost, so that a call reported as lost has committed nothing after the loss.
     *
     * @throws LockLostException to make the transaction roll back
     */
    static void beforeCommit(Object transaction) {
        for (CallTransactions call : running()) {
            if (call.isOpen(transaction) && !call.locks.isValid()) {
                throw new LockLostException("Refused to commit a transaction under the " + call.description
                        + ": the lock was lost before the commit, so the transaction rolls back");
            }
        }
    }

    /**
     * A transaction ended; {@code failure} is why a commit's outcome is unknown, {@code readOnly}
     * whether it was declared read-only.
     */
    static void ended(Object transaction, Ending ending, @Nullable Throwable failure, boolean readOnly) {
        for (CallTransactions call : running()) {
            call.end(transaction, ending, failure, readOnly);
        }
    }

    private static List<CallTransactions> running() {
        Deque<CallTransactions> calls = CALLS.get();
        return (calls != null) ? new ArrayList<>(calls) : List.of();
    }

    private synchronized void add(Object transaction) {
        this.open.add(transaction);
    }

    private synchronized boolean isOpen(Object transaction) {
        return this.open.contains(transaction);
    }

    private synchronized void end(Object transaction, Ending ending, @Nullable Throwable failure, boolean readOnly) {
        if (!this.open.remove(transaction)) {
            return;
        }
        this.last = ending;
        switch (ending) {
            case COMMITTED -> {
                this.committed++;
                this.committedWrites += readOnly ? 0 : 1;
            }
            case ROLLED_BACK -> this.rolledBack++;
            case UNKNOWN -> {
                this.unknown++;
                this.unknownCause = failure;
            }
        }
    }

    /**
     * Whether the call's work is done: its last transaction committed (while the lock was held: a
     * commit under a lost lock is refused) and no transaction is open or of unknown outcome.
     */
    synchronized boolean committedLast() {
        return this.last == Ending.COMMITTED && this.open.isEmpty() && this.unknown == 0;
    }

    /**
     * What happened to the call's transactions, as the end of the sentence "the lock was lost
     * while ... ran", with what the caller can safely do next.
     */
    synchronized String outcome() {
        if (this.unknown > 0) {
            return ", and the commit of its transaction has an unknown outcome (" + this.unknownCause
                    + "): its writes may or may not be in the database. Check what the database holds before doing"
                    + " the work again; a blind retry may do it twice.";
        }
        if (this.committedWrites > 0) {
            return ", after " + this.committedWrites + " of its transactions had committed: what they wrote stays in"
                    + " the database, what came after did not commit. Check what the database holds before doing the"
                    + " work again; a blind retry would repeat the committed part.";
        }
        if (this.committed > 0 || this.rolledBack > 0) {
            return "; its transactions were rolled back or read-only, so nothing it wrote in a transaction was"
                    + " committed.";
        }
        if (!this.open.isEmpty()) {
            return "; its transaction was still open when the call ended: whatever commits it does so without the"
                    + " lock.";
        }
        return "; it ran no transaction that FenceLock could follow, so what it changed is not known:"
                + " fencing-aware stores refuse its writes once a newer holder has written, others may have been"
                + " applied. Check before doing the work again.";
    }
}
