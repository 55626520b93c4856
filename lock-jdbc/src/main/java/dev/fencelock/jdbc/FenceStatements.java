package dev.fencelock.jdbc;

import dev.fencelock.FencingContext.Fence;
import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.InvalidLockKeyException;
import dev.fencelock.LockException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a client that reaches the database through another driver than JDBC (R2DBC) sends to present
 * a guard's fences, and how it reads the answers: the same statements, verdicts and errors as
 * {@link FencedDataSource}, so both kinds of client compete for the same fence rows and meet the
 * same protected tables.
 *
 * <p>In every statement, each {@code ?} is a parameter marker, numbered from 1, and no {@code ?}
 * appears anywhere else, so a driver with other markers (PostgreSQL's {@code $1}) can renumber them
 * by position.
 */
public final class FenceStatements {

    private final FenceGuard guard;

    private final FenceDialect dialect;

    private FenceStatements(FenceGuard guard, FenceDialect dialect) {
        this.guard = guard;
        this.dialect = dialect;
    }

    /** {@code guard}'s statements for a database of {@code dialect}. */
    public static FenceStatements of(FenceGuard guard, FenceDialect dialect) {
        return new FenceStatements(Objects.requireNonNull(guard), Objects.requireNonNull(dialect));
    }

    public FenceGuard guard() {
        return this.guard;
    }

    public FenceDialect dialect() {
        return this.dialect;
    }

    /**
     * The checks made before anything is sent ({@link FenceGuard#check}'s local part).
     *
     * @throws FencingTokenRejectedException when the fence's lease is known to be lost, or its store
     *     issues no fencing tokens
     * @throws InvalidLockKeyException when the resource does not fit the fence table
     */
    public void checkLocally(Fence fence) {
        this.guard.checkLocally(fence, this.dialect);
    }

    /** The fence rows {@code fence} is presented to, in the guard's order (a scope rollout's unscoped row first). */
    public List<String> rowKeys(Fence fence) {
        return this.guard.rows(fence).stream().map(SessionFence.Row::key).toList();
    }

    /** The conditional upsert of one fence row: parameter 1 the row key, parameter 2 the token. */
    public String upsertSql() {
        return this.dialect.upsertSql(this.guard.table());
    }

    /**
     * Whether the upsert's update count is the verdict (above 0: accepted); otherwise the token read
     * by {@link #lockedTokenSql()} right after it is, accepted when it equals the presented token.
     */
    public boolean upsertCountIsVerdict() {
        return this.dialect.upsertCountIsVerdict();
    }

    /** The locking read of a fence row's token after the upsert: parameter 1 the row key. */
    public String lockedTokenSql() {
        return this.dialect.lockedTokenSql(this.guard.table());
    }

    /** The fence table's refusal of {@code token} for {@code resource}, as the guard throws it. */
    public FencingTokenRejectedException rejection(String resource, long token, @Nullable Long storedToken) {
        return GuardMessages.rejected(this.guard.table(), resource, token, storedToken);
    }

    /** The value the protected tables' triggers read for a transaction that presents {@code fences}. */
    public String sessionFence(List<Fence> fences) {
        List<SessionFence.Row> rows = new ArrayList<>();
        for (Fence fence : fences) {
            rows.addAll(this.guard.rows(fence));
        }
        return SessionFence.of(rows, false);
    }

    /** The statement that puts {@link #sessionFence} (parameter 1) in the session for the current transaction. */
    public String sessionFenceSql() {
        return FenceProtection.sessionFenceSql(this.dialect);
    }

    /**
     * The statement that clears the session's fence, where it outlives the transaction (MariaDB), or
     * {@code null}. Run it before the session serves anyone else.
     */
    public @Nullable String sessionFenceResetSql() {
        return FenceProtection.outlivesTransaction(this.dialect) ? "SET @fencelock_fence = NULL" : null;
    }

    /**
     * What a failure with {@code sqlState} and {@code message} means when it is a protected table's
     * refusal of a write under {@code fence}, or {@code null} when it is none: a {@link
     * FencingTokenRejectedException} for a stale token, a {@link LockException} for a missing fence or a
     * write nested in a fenced transaction; {@code failure} is its cause.
     */
    public @Nullable RuntimeException refusal(
            @Nullable String sqlState, @Nullable String message, @Nullable Fence fence, Throwable failure) {
        return FenceProtection.translate(sqlState, message, fence, failure);
    }
}
