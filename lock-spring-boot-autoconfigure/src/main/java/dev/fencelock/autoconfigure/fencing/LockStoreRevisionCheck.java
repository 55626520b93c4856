package dev.fencelock.autoconfigure.fencing;

import dev.fencelock.LockClient;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.jdbc.FencedDataSource;
import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.spi.LockAdministration;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Refuses to start when the lock store's current revision is below the highest token a fence table
 * holds for this application's scope. Tokens are etcd revisions; an etcd restored from a snapshot
 * re-issues revisions, so its new holders would present tokens the table has already accepted,
 * and a holder from before the restore could overwrite their work. Runs after the fence tables
 * were checked or created.
 *
 * <p>When the store cannot be asked (unreachable at startup, or a store without revisions) the
 * check is skipped with a warning: starting while etcd is down is allowed, as everywhere else. The
 * in-memory store is not checked: its revisions start again with every JVM.
 */
final class LockStoreRevisionCheck implements SmartInitializingSingleton {

    private static final Log logger = LogFactory.getLog(LockStoreRevisionCheck.class);

    private final ListableBeanFactory beanFactory;

    private final ObjectProvider<LockClient> client;

    private final Duration timeout;

    LockStoreRevisionCheck(ListableBeanFactory beanFactory, ObjectProvider<LockClient> client, Duration timeout) {
        this.beanFactory = beanFactory;
        this.client = client;
        this.timeout = timeout;
    }

    @Override
    public void afterSingletonsInstantiated() {
        LockClient lockClient = this.client.getIfUnique();
        LockAdministration administration =
                (lockClient != null) ? lockClient.administration().orElse(null) : null;
        if (administration == null || lockClient.backend() instanceof InMemoryLockBackend) {
            // In-memory revisions start again in every JVM, so a lasting fence table is always ahead of them.
            return;
        }
        Map<String, FenceGuard> guards = new LinkedHashMap<>();
        Map<String, Long> highest = new LinkedHashMap<>();
        for (String name : this.beanFactory.getBeanNamesForType(DataSource.class)) {
            DataSource dataSource = this.beanFactory.getBean(name, DataSource.class);
            if (FencedDataSourcePostProcessor.isFenced(dataSource)) {
                FenceGuard guard = guardOf(dataSource);
                guards.put(name, guard);
                highest.put(name, highestToken(name, dataSource, guard));
            }
        }
        if (highest.values().stream().allMatch(token -> token == 0)) {
            return;
        }
        Long revision = currentRevision(administration, lockClient);
        if (revision == null) {
            return;
        }
        guards.forEach((name, guard) -> {
            long token = highest.get(name);
            if (token > revision) {
                throw new LockStoreBehindFencesException(
                        lockClient.backend().describe(),
                        revision,
                        token,
                        guard.table().name(),
                        guard.scope(),
                        name);
            }
        });
    }

    private static FenceGuard guardOf(DataSource dataSource) {
        try {
            return dataSource.unwrap(FencedDataSource.class).getGuard();
        } catch (SQLException ex) {
            throw new IllegalStateException("Could not reach the FencedDataSource of " + dataSource, ex);
        }
    }

    private static long highestToken(String name, DataSource dataSource, FenceGuard guard) {
        // No fence on this thread: the connection passes every statement through unguarded.
        try (Connection connection = dataSource.getConnection()) {
            return guard.highestToken(connection);
        } catch (SQLException ex) {
            throw new IllegalStateException(
                    "Could not read the highest fencing token of fence table '" + guard.table()
                            + "' in the database of DataSource bean '" + name + "': " + ex.getMessage(),
                    ex);
        }
    }

    private @Nullable Long currentRevision(LockAdministration administration, LockClient lockClient) {
        try {
            return administration.currentRevision().get(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException ex) {
            if (!(ex.getCause() instanceof UnsupportedOperationException)) {
                warnUnchecked(lockClient, ex.getCause().getMessage());
            }
        } catch (TimeoutException ex) {
            warnUnchecked(lockClient, "no answer within " + this.timeout.toMillis() + " ms");
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return null;
    }

    private static void warnUnchecked(LockClient lockClient, String why) {
        logger.warn("Could not compare the revision of " + lockClient.backend().describe()
                + " with the highest fencing token of the fence tables (" + why + "). If etcd was restored from"
                + " a snapshot, follow 'Restoring etcd from a snapshot' in docs/operations.md before locking.");
    }
}
