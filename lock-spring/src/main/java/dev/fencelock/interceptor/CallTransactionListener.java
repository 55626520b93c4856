package dev.fencelock.interceptor;

import org.jspecify.annotations.Nullable;
import org.springframework.transaction.ConfigurableTransactionManager;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;

/**
 * Tells the {@code @DistributedLock} calls running on a thread how the Spring transactions they
 * began ended, and refuses to commit a transaction whose lock is known to be lost (it rolls back).
 *
 * <p>The lock advice wraps {@code @Transactional}, so it cannot see the commit itself; this
 * listener, added to every {@link ConfigurableTransactionManager} bean, sees it for the advice:
 * {@code @Transactional} methods, {@code TransactionTemplate} and {@code REQUIRES_NEW} alike.
 * Outside a locked call it does nothing.
 */
public final class CallTransactionListener implements TransactionExecutionListener {

    /** Adds the listener to {@code transactionManager} unless it is there already. */
    public static void addTo(ConfigurableTransactionManager transactionManager) {
        for (TransactionExecutionListener listener : transactionManager.getTransactionExecutionListeners()) {
            if (listener instanceof CallTransactionListener) {
                return;
            }
        }
        transactionManager.addListener(new CallTransactionListener());
    }

    @Override
    public void afterBegin(TransactionExecution transaction, @Nullable Throwable beginFailure) {
        if (beginFailure == null) {
            CallTransactions.begun(transaction);
        }
    }

    @Override
    public void beforeCommit(TransactionExecution transaction) {
        CallTransactions.beforeCommit(transaction);
    }

    @Override
    public void afterCommit(TransactionExecution transaction, @Nullable Throwable commitFailure) {
        CallTransactions.ended(
                transaction,
                (commitFailure == null) ? CallTransactions.Ending.COMMITTED : CallTransactions.Ending.UNKNOWN,
                commitFailure,
                transaction.isReadOnly());
    }

    @Override
    public void afterRollback(TransactionExecution transaction, @Nullable Throwable rollbackFailure) {
        // A transaction that never committed stays uncommitted even when its rollback call failed.
        CallTransactions.ended(
                transaction, CallTransactions.Ending.ROLLED_BACK, rollbackFailure, transaction.isReadOnly());
    }
}
