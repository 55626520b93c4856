package dev.fencelock.jdbc;

import dev.fencelock.FencingContext.Fence;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
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
 * transaction of the same thread on the same database (Spring's {@code REQUIRES_NEW}, a second
 * fenced data source) cannot present the same fence: it would wait for a lock that its own thread
 * holds, and the first transaction waits for it. It rides on the first one instead: while that
 * one is open, nobody can advance the fence row, so the token it accepted stays the highest. A
 * rider that is about to commit after its lender ended, or whose lender no longer answers,
 * presents the fence itself first.
 */
final class FencedTransaction {

    /** Open transactions of this thread that hold fence row locks, for riders to find. */
    private static final ThreadLocal<List<FencedTransaction>> LENDERS = new ThreadLocal<>();

    /** Which database the fence rows live in: the fence table and where the connection points. */
    private final String database;

    /** The real connection, to see whether a lender is still alive. */
    private final Connection connection;

    private final Map<String, Check> checks = new HashMap<>(4);

    private boolean open = true;

    private boolean lending;

    /**
     * One fence as this transaction established it.
     *
     * @param fence the fence, with its lease, so a lost lease is noticed
     * @param rowLocked whether this transaction holds the fence row's lock
     * @param lender the transaction whose lock this one rides on, or {@code null}
     */
    private record Check(
            Fence fence, boolean rowLocked, @Nullable FencedTransaction lender) {}

    FencedTransaction(String database, Connection connection) {
        this.database = database;
        this.connection = connection;
    }

    boolean isOpen() {
        return this.open;
    }

    /** Whether this transaction already established {@code fence}, and still may rely on it. */
    boolean covers(Fence fence) {
        Check check = this.checks.get(fence.resource());
        return check != null
                && check.fence().token() == fence.token()
                && fence.isValid()
                && (check.lender() == null || check.lender().open);
    }

    /** Records that the guard presented {@code fence} in this transaction. */
    void presented(Fence fence, boolean rowLocked) {
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
     * Rides on another open transaction of this thread that holds {@code fence}'s row lock on the
     * same database, if there is one.
     *
     * @return whether it found one
     */
    boolean rideOnLender(Fence fence) {
        List<FencedTransaction> lenders = LENDERS.get();
        if (lenders == null) {
            return false;
        }
        for (FencedTransaction lender : lenders) {
            Check check = lender.checks.get(fence.resource());
            if (lender != this
                    && lender.open
                    && lender.database.equals(this.database)
                    && check != null
                    && check.rowLocked()
                    && check.fence().token() == fence.token()) {
                this.checks.put(fence.resource(), new Check(fence, false, lender));
                return true;
            }
        }
        return false;
    }

    /**
     * The fences this transaction must present itself before it commits: those it rode on a lender
     * that has ended since, or that no longer answers (its session may be gone, and its lock with it).
     */
    List<Fence> ridesToConfirm() {
        List<Fence> confirm = new ArrayList<>();
        for (Check check : this.checks.values()) {
            FencedTransaction lender = check.lender();
            if (lender != null && !(lender.open && lender.answers())) {
                confirm.add(check.fence());
            }
        }
        return confirm;
    }

    /** The transaction ended: nothing it established holds any more, for it or its riders. */
    void end() {
        this.open = false;
        this.checks.clear();
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

    private boolean answers() {
        try (Statement statement = this.connection.createStatement()) {
            statement.execute("SELECT 1");
            return true;
        } catch (SQLException ex) {
            end();
            return false;
        }
    }
}
