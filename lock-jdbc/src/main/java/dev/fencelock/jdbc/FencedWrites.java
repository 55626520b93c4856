package dev.fencelock.jdbc;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockException;
import java.util.regex.Pattern;

/**
 * Row-level fencing for hand-written SQL: the business row carries the token of the holder that
 * last wrote it, and every update is conditional on it.
 *
 * <pre>{@code
 * // CREATE TABLE stock (sku VARCHAR(64) PRIMARY KEY, qty INT NOT NULL, fence_token BIGINT NOT NULL DEFAULT 0)
 * long token = FencedWrites.token("stock:" + sku);
 * int rows = jdbc.update(
 *         "UPDATE stock SET qty = ?, fence_token = ? WHERE sku = ? AND " + FencedWrites.condition("fence_token"),
 *         qty, token, sku, token);
 * FencedWrites.requireAccepted(rows, "stock:" + sku);
 * }</pre>
 *
 * <p>The update matches no row once a newer holder has written the row with a larger token, so a
 * stale holder changes nothing. Equal tokens match: one holder may update its rows many times.
 * The token column must be {@code NOT NULL} (start it at 0): {@code NULL <= ?} matches nothing.
 * This needs no fence table and works in auto-commit mode, but protects only the rows whose
 * updates carry the condition.
 */
public final class FencedWrites {

    private static final Pattern COLUMN =
            Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    private FencedWrites() {}

    /**
     * The SQL condition {@code <tokenColumn> <= ?}; bind the token to its placeholder.
     *
     * @throws IllegalArgumentException when {@code tokenColumn} is not a plain (optionally
     *     qualified) column name: it becomes SQL text, so nothing else is accepted
     */
    public static String condition(String tokenColumn) {
        if (!COLUMN.matcher(tokenColumn).matches()) {
            throw new IllegalArgumentException("Token column '" + tokenColumn
                    + "' is not a plain column name (letters, digits, '_', optionally 'table.column')");
        }
        return tokenColumn + " <= ?";
    }

    /**
     * The token of the current thread's innermost exclusive fence ({@link FencingContext#writeFence()}).
     *
     * @throws LockException when the thread works under no fence, or only under shared locks and
     *     permits, whose tokens cannot fence a write
     * @throws FencingTokenRejectedException when that fence's lock is already known to be lost, or its
     *     store issues no fencing tokens ({@link dev.fencelock.LockLease#isFencing()})
     */
    public static long token() {
        Fence fence = FencingContext.writeFence()
                .orElseThrow(() -> FencingContext.current().isPresent()
                        ? new LockException(
                                "No fencing token: this thread holds only shared locks or semaphore permits,"
                                        + " whose tokens cannot fence a write (several holders have them at once); write under an"
                                        + " exclusive lock")
                        : new LockException("No fencing token: this thread holds no lock in FencingContext;"
                                + " run the write inside @DistributedLock or FencingContext.open(lease)"));
        return validToken(fence);
    }

    /**
     * The token of the current thread's fence for {@code resource}.
     *
     * @throws LockException when the thread works under no fence for {@code resource}
     * @throws FencingTokenRejectedException when that fence's lock is already known to be lost, or its
     *     store issues no fencing tokens ({@link dev.fencelock.LockLease#isFencing()})
     */
    public static long token(String resource) {
        Fence fence = FencingContext.forResource(resource)
                .orElseThrow(() -> new LockException("No fencing token for '" + resource
                        + "': this thread holds no lock on it in FencingContext; acquire it first"
                        + " (@DistributedLock or FencingContext.open(lease))"));
        if (!fence.fencesWrites()) {
            throw new LockException("The lock on '" + resource + "' is shared or a semaphore permit: its token"
                    + " cannot fence a write, because several holders have such tokens at once. Write under an"
                    + " exclusive lock.");
        }
        return validToken(fence);
    }

    /**
     * Checks the row count of a fenced update of the current thread's innermost exclusive fence.
     *
     * @return {@code updatedRows}, when positive
     * @throws FencingTokenRejectedException when no row was updated
     */
    public static long requireAccepted(long updatedRows) {
        Fence fence = FencingContext.writeFence()
                .orElseThrow(() -> new LockException("No fencing token: this thread holds no lock in FencingContext"));
        return requireAccepted(updatedRows, fence.resource());
    }

    /**
     * Checks the row count of a fenced update of {@code resource}.
     *
     * <p>Zero rows means the row carries a larger token than this holder's, or it does not exist;
     * the update alone cannot tell which, so the message names both.
     *
     * @return {@code updatedRows}, when positive
     * @throws FencingTokenRejectedException when no row was updated
     */
    public static long requireAccepted(long updatedRows, String resource) {
        if (updatedRows > 0) {
            return updatedRows;
        }
        long token = FencingContext.forResource(resource).map(Fence::token).orElse(-1L);
        throw new FencingTokenRejectedException(
                resource,
                token,
                "Fenced update for '" + resource + "' with token " + token
                        + " changed no row: a newer lock holder already wrote it with a larger token (or the row"
                        + " does not exist). Roll back; this process no longer holds the lock.",
                FencingTokenRejectedException.RefusedBy.ROW);
    }

    private static long validToken(Fence fence) {
        if (!fence.isValid()) {
            throw new FencingTokenRejectedException(
                    fence.resource(),
                    fence.token(),
                    "Lock on '" + fence.resource() + "' is no longer held; refused to hand out fencing token "
                            + fence.token() + " for a write. Roll back and acquire the lock again.",
                    FencingTokenRejectedException.RefusedBy.CLIENT);
        }
        if (!fence.fencing()) {
            throw FencingTokenRejectedException.notFencing(
                    fence.resource(), fence.token(), "refused to hand it out for a write");
        }
        return fence.token();
    }
}
