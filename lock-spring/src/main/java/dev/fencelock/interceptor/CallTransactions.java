package dev.fencelock.interceptor;

import dev.fencelock.LockLostException;
import dev.fencelock.StatementTally;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The transactions that began and ended on its thread while one {@code @DistributedLock} call ran,
 * as {@link CallTransactionListener} reports them. When the lock is lost, they decide what the
 * caller is told: work that committed while the lock was still held is done, and reporting it as
 * failed would invite a retry that does it twice.
 *
 * <p>Each locked call on the thread keeps its own record, so an outer call also sees the
 * transactions of the locked calls nested in it.
 *
 * <p>Whether a committed transaction wrote: it did not when it was declared read-only, or when the
 * statements the data layer reported in it ({@link StatementTally}) were all reads. Statements are
 * counted to the innermost transaction open on the thread when they ran, so a {@code REQUIRES_NEW}
 * transaction's statements are its own. A transaction that is not read-only and of whose statements
 * nothing was reported may have written: that is said as it is.
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

    /** Transactions begun during the call and not ended yet, in the order they began. */
    private final List<Object> open = new ArrayList<>(2);

    /** The statements reported in each open transaction so far, by identity. */
    private final Map<Object, StatementTally.Counts> statements = new IdentityHashMap<>();

    /** The thread's statement counts when this record last attributed them. */
    private StatementTally.Counts seen;

    private int committed;

    /** Committed transactions in which a statement that may write ran. */
    private int committedWrites;

    /** Committed transactions not declared read-only, of whose statements nothing was reported. */
    private int committedUnknown;

    private int rolledBack;

    private int unknown;

    private @Nullable Ending last;

    private @Nullable Throwable unknownCause;

    private CallTransactions(CallLocks locks, String description) {
        this.locks = locks;
        this.description = description;
        this.seen = StatementTally.current();
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
        attributeStatements();
        this.open.add(transaction);
        this.statements.put(transaction, StatementTally.Counts.NONE);
    }

    private synchronized boolean isOpen(Object transaction) {
        return indexOf(transaction) >= 0;
    }

    private int indexOf(Object transaction) {
        for (int i = this.open.size() - 1; i >= 0; i--) {
            if (this.open.get(i) == transaction) {
                return i;
            }
        }
        return -1;
    }

    /** Counts the statements reported since the last event to the innermost open transaction. */
    private void attributeStatements() {
        StatementTally.Counts now = StatementTally.current();
        if (!this.open.isEmpty()) {
            this.statements.merge(
                    this.open.get(this.open.size() - 1), now.since(this.seen), StatementTally.Counts::plus);
        }
        this.seen = now;
    }

    private synchronized void end(Object transaction, Ending ending, @Nullable Throwable failure, boolean readOnly) {
        int index = indexOf(transaction);
        if (index < 0) {
            return;
        }
        attributeStatements();
        this.open.remove(index);
        StatementTally.Counts ran = this.statements.remove(transaction);
        this.last = ending;
        switch (ending) {
            case COMMITTED -> {
                this.committed++;
                if (!readOnly && ran != null && ran.mayWrite() > 0) {
                    this.committedWrites++;
                } else if (!readOnly && (ran == null || ran.statements() == 0)) {
                    this.committedUnknown++;
                }
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
            return ", after " + this.committedWrites
                    + " of its transactions had committed writes: what they wrote stays"
                    + " in the database, what came after did not commit. Check what the database holds before doing the"
                    + " work again; a blind retry would repeat the committed part.";
        }
        if (this.committedUnknown > 0) {
            return ", after " + this.committedUnknown
                    + " of its transactions had committed. Whether they wrote anything"
                    + " is not known: they were not declared read-only, and no statement of theirs was reported as a"
                    + " read. If they wrote, it stays in the database and what came after did not commit. Check what"
                    + " the database holds before doing the work again; a blind retry may repeat the committed part.";
        }
        if (this.committed > 0 || this.rolledBack > 0) {
            return "; nothing was written: its transactions rolled back, or committed reads only (declared read-only,"
                    + " or no statement that writes ran in them).";
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
