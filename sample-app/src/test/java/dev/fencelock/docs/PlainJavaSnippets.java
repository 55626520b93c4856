package dev.fencelock.docs;

import dev.fencelock.FencingContext;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.jdbc.FenceGuard;
import dev.fencelock.jdbc.FencedDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/** README.md, "Quick start (plain Java)" and "Fencing at the database". */
class PlainJavaSnippets {

    void quickStart() {
        EtcdLockBackend backend = EtcdLockBackend.builder()
                .endpoints("http://10.0.0.1:2379", "http://10.0.0.2:2379", "http://10.0.0.3:2379")
                .namespace("/fencelock")
                .build();
        try (LockClient locks = LockClient.builder(backend)
                .defaultLeaseTtl(Duration.ofSeconds(30))
                .defaultWaitTimeout(Duration.ofSeconds(10))
                .build()) {
            try (LockLease lease = locks.acquire(LockRequest.of("order:42"))) {
                // Write with lease.fencingToken(), so the store can reject a stale holder.
            }
        }
    }

    void fencedDataSource(LockClient locks, DataSource pool) throws SQLException {
        DataSource dataSource = new FencedDataSource(pool, FenceGuard.create()); // table fencelock_fence
        try (LockLease lease = locks.acquire(LockRequest.of("stock:apple"));
                FencingContext.Scope fence = FencingContext.open(lease);
                Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            // The first statement runs the guard first, then your UPDATE.
            connection.commit();
        }
    }
}
