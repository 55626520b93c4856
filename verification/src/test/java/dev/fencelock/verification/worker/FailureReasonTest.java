package dev.fencelock.verification.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.FencingTokenRejectedException;
import dev.fencelock.FencingTokenRejectedException.RefusedBy;
import dev.fencelock.LockException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** The histories name who refused a write by what the exception says of itself, not by its wording. */
class FailureReasonTest {

    @Test
    void aRefusalIsNamedAfterWhoRefusedIt() {
        assertThat(FailureReason.ofTransaction(rejected(RefusedBy.CLIENT, "no longer held")))
                .isEqualTo("fenced-local");
        assertThat(FailureReason.ofTransaction(rejected(RefusedBy.FENCE_TABLE, "refused by fence table 'f'")))
                .isEqualTo("fenced-db");
        assertThat(FailureReason.ofTransaction(rejected(RefusedBy.PROTECTED_TABLE, "refused by a protected table")))
                .isEqualTo("fenced-protected-table");
        assertThat(FailureReason.ofTransaction(rejected(RefusedBy.ROW, "changed no row")))
                .isEqualTo("fenced-row");
    }

    @Test
    void aRefusalWrappedInAnotherExceptionIsFoundAmongItsCauses() {
        SQLException wrapper =
                new SQLException("batch failed", "XX000", rejected(RefusedBy.PROTECTED_TABLE, "by a protected table"));

        assertThat(FailureReason.ofTransaction(wrapper)).isEqualTo("fenced-protected-table");
    }

    @Test
    void aProtectedTableThatFindsNoFenceIsNotAStaleWriterButAWriteWithoutFence() {
        // The guard turns the trigger's FL001 into a LockException that keeps the driver's exception as its cause.
        LockException noFence = new LockException(
                "The database refused the write: fencelock: UPDATE on protected table t carries no fence",
                new SQLException("fencelock: UPDATE on protected table t carries no fence", "FL001"));
        LockException mariaDbNoFence =
                new LockException("The database refused the write", new SQLException("carries no fence", "45F01"));
        LockException nested = new LockException("The database refused the write", new SQLException("nested", "FL003"));

        assertThat(FailureReason.ofTransaction(noFence)).isEqualTo("db-no-fence");
        assertThat(FailureReason.ofTransaction(mariaDbNoFence)).isEqualTo("db-no-fence");
        assertThat(FailureReason.ofTransaction(nested)).isEqualTo("db-nested-fence");
    }

    @Test
    void otherDatabaseFailuresKeepTheirCategories() {
        assertThat(FailureReason.ofTransaction(new SQLException("canceling statement due to lock timeout", "55P03")))
                .isEqualTo("db-lock-timeout");
        assertThat(FailureReason.ofTransaction(new SQLException("connection reset", "08006")))
                .isEqualTo("db-error");
        assertThat(FailureReason.ofTransaction(new IllegalStateException("bug")))
                .isEqualTo("error");
    }

    private static FencingTokenRejectedException rejected(RefusedBy refusedBy, String message) {
        return new FencingTokenRejectedException("k0", 17, message, refusedBy);
    }
}
