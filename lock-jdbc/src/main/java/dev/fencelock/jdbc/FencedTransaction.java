package dev.fencelock.jdbc;

import dev.fencelock.FencingContext.Fence;
import dev.fencelock.LockException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What the guard established in one transaction of one fenced connection, from its first guarded
 * statement to its end, whatever ends it.
 *
 * <p>A transaction that presented a fence holds the fence row's lock until it ends. Another
 * transaction of the same thread on the same fence table (Spring's {@code REQUIRES_NEW}, a second
 * fenced data source) cannot present the same fence: it would wait for a lock that its own thread
 * holds, and the first transaction waits for it. It rides on the first one instead: while that
 * one is open, nobody can advance the fence row, so the token it accepted stays the highest.
 *
 * <p>Whether the first one is still open is asked of its server whenever it cannot be known: after
 * an error on its connection (the server may have rolled it back, a deadlock victim) and before a
 * rider commits (the session may have been ended from outside). A rider whose lender has ended
 * presents the fence itself.
 */
final class FencedTransaction {

    /** Open transactions of this thread that hold fence row locks, for riders to find. */
    private static final ThreadLocal<List<FencedTransaction>> LENDERS = new ThreadLocal<>();

    private final FencedConnection connection;

    private final Map<String, Check> checks = new HashMap<>(4);

    private boolean open = true;

    private boolean lending;

    /** A statement failed since the fences were presented: the server may have rolled the transaction back. */
    private boolean uncertain;

    /** The fences this transaction put in its session for the protected tables, or {@code null}. */
    private @Nullable String sessionFence;

    /** Which fence table this transaction's session writes to; computed when a rider first needs it. */
    private @Nullable String table;

    /**
     * One fence as this transaction established it.
     *
     * @param fence the fence, with its lease, so a lost lease is noticed
     * @param rowLocked whether this transaction holds the fence row's lock
     * @param lender the transaction whose lock this one rides on, or {@code null}
     */
    private record Check(
            Fence fence, boolean rowLocked, @Nullable FencedTransaction lender) {}

    FencedTransaction(FencedConnection connection) {
        this.connection = connection;
    }

    boolean isOpen() {
        return this.open;
    }

    /** Whether this transaction already established {@code fence}, and still may rely on it. */
    boolean covers(Fence fence) {
        Check check = this.checks.get(fence.resource());
        return check != null
                && !this.uncertain
                && check.fence().token() == fence.token()
                && fence.isValid()
                && (check.lender() == null || (check.lender().open && !check.lender().uncertain));
    }

    /** Whether any fence of this transaction rides on another transaction's fence row lock. */
    boolean rides() {
        return this.checks.values().stream().anyMatch(check -> check.lender() != null);
    }

    @Nullable
    String sessionFence() {
        return this.sessionFence;
    }

    void sessionFenceSet(String value) {
        this.sessionFence = value;
    }

    /** A statement of this transaction failed: the fences are presented again before the next one. */
    void failed() {
        this.uncertain = true;
        this.sessionFence = null; // and put in the session again, in case the server began a new transaction
    }

    /** Records that the guard presented {@code fence} in this transaction. */
    void presented(Fence fence, boolean rowLocked) {
        this.uncertain = false;
        this.checks.put(fence.resource(), new Check(fence, rowLocked, null));
        if (rowLocked && !this.lending) {
            this.lending = true;
            List<FencedTransaction> lenders = LENDERS.get();
            if (lenders == null) {
                lenders = new ArrayList<>(2);
                LENDERS.set(lenders);
            }
            lenders.add(this);
        }
    }

    /**
     * Rides on another open transaction of this thread that holds {@code fence}'s row lock in the
     * same fence table, if there is one.
     *
     * @return whether it found one
     */
    boolean rideOnLender(Fence fence) throws SQLException {
        List<FencedTransaction> lenders = LENDERS.get();
        if (lenders == null) {
            return false;
        }
        for (FencedTransaction lender : List.copyOf(lenders)) {
            Check check = lender.checks.get(fence.resource());
            if (lender != this
                    && lender.open
                    && check != null
                    && check.rowLocked()
                    && check.fence().token() == fence.token()
                    && lender.table().equals(table())
                    && (!lender.uncertain || lender.stillOpen())) {
                this.checks.put(fence.resource(), new Check(fence, false, lender));
                return true;
            }
        }
        return false;
    }

    /**
     * The fences this transaction must present itself before it commits: those it rode on a lender
     * whose server transaction has ended since.
     */
    List<Fence> ridesToConfirm() throws SQLException {
        List<Fence> confirm = new ArrayList<>();
        for (Check check : List.copyOf(this.checks.values())) {
            FencedTransaction lender = check.lender();
            if (lender != null && !(lender.open && lender.stillOpen())) {
                confirm.add(check.fence());
            }
        }
        return confirm;
    }

    /** The transaction ended: nothing it established holds any more, for it or its riders. */
    void end() {
        this.open = false;
        this.checks.clear();
        this.sessionFence = null;
        if (this.lending) {
            this.lending = false;
            List<FencedTransaction> lenders = LENDERS.get();
            if (lenders != null) {
                lenders.remove(this);
                if (lenders.isEmpty()) {
                    LENDERS.remove();
                }
            }
        }
    }

    /**
     * Asks the server whether this transaction is still open. Nothing ran on its connection since it
     * presented its fences, or since the failure, so an open writing transaction there is this one.
     *
     * @throws LockException when the server cannot say: the fence row may still be locked by it, and a
     *     rider would wait for that lock on its own thread
     */
    private boolean stillOpen() throws SQLException {
        boolean open;
        try {
            open = this.connection.hasOpenWritingTransaction();
        } catch (SQLException ex) {
            if (this.connection.isGone(ex) || "25P02".equals(ex.getSQLState())) {
                // Gone, or (PostgreSQL) failed: its server transaction already aborted and released its locks.
                open = false;
            } else {
                throw new LockException(
                        "Could not tell whether an outer transaction of this thread on the same fence table still"
                                + " holds the fence row's lock (" + ex.getMessage() + "); roll it back before"
                                + " committing the transaction nested in it.",
                        ex);
            }
        }
        if (open) {
            this.uncertain = false;
        } else {
            end();
        }
        return open;
    }

    private String table() throws SQLException {
        if (this.table == null) {
            this.table = this.connection.fenceTableIdentity();
        }
        return this.table;
    }
}
