package dev.fencelock.verification.worker;

import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.LockAcquisitionTimeoutException;
import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockQueueFullException;
import java.sql.SQLException;
import java.util.Set;

/**
 * The short category a history gives a failed or unknown operation. The checker reads these words and nothing of
 * FenceLock, so they are its only knowledge of who refused a write.
 */
final class FailureReason {

    /** This process refused the write before any SQL was sent: it knew its lease was lost. */
    static final String FENCED_LOCAL = "fenced-local";

    /** The database refused the fence at the fence table, where the client presented it. */
    static final String FENCED_FENCE_TABLE = "fenced-db";

    /** The database refused the fence in a protected table's trigger. */
    static final String FENCED_PROTECTED_TABLE = "fenced-protected-table";

    /** A row-fenced update matched no row. The campaign's workload has none; listed so that one would stand out. */
    static final String FENCED_ROW = "fenced-row";

    /** A protected table refused a write that carried no fence: under a lock, that is the client's failure. */
    static final String NO_FENCE = "db-no-fence";

    /** A protected table refused a write from a transaction nested in a fenced one; the workload nests none. */
    static final String NESTED_FENCE = "db-nested-fence";

    /** PostgreSQL: {@code lock_timeout} ran out waiting for a row lock. */
    static final String LOCK_TIMEOUT = "db-lock-timeout";

    /** SQLSTATEs of a protected table's trigger for a missing fence: PostgreSQL and H2, MariaDB. */
    private static final Set<String> NO_FENCE_STATES = Set.of("FL001", "45F01");

    /** SQLSTATEs of a protected table's trigger for a nested transaction: PostgreSQL and H2, MariaDB. */
    private static final Set<String> NESTED_STATES = Set.of("FL003", "45F03");

    private FailureReason() {}

    /** Why an acquisition failed; an unreachable store is named, as in {@code zookeeper-unavailable}. */
    static String ofAcquire(RuntimeException e, Store store) {
        if (e instanceof LockAcquisitionTimeoutException) {
            return "acquire-timeout";
        }
        if (e instanceof LockBackendUnavailableException) {
            return store.label() + "-unavailable";
        }
        if (e instanceof LockQueueFullException) {
            return "queue-full";
        }
        return "acquire-error";
    }

    /** Why a transaction failed before its commit was called; the first cause that says decides. */
    static String ofTransaction(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof FencingTokenRejectedException rejected) {
                return switch (rejected.refusedBy()) {
                    case CLIENT -> FENCED_LOCAL;
                    case FENCE_TABLE -> FENCED_FENCE_TABLE;
                    case PROTECTED_TABLE -> FENCED_PROTECTED_TABLE;
                    case ROW -> FENCED_ROW;
                };
            }
            if (cause instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                if (NO_FENCE_STATES.contains(state)) {
                    return NO_FENCE;
                }
                if (NESTED_STATES.contains(state)) {
                    return NESTED_FENCE;
                }
                if ("55P03".equals(state)) {
                    return LOCK_TIMEOUT;
                }
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return e instanceof SQLException ? "db-error" : "error";
    }
}
