package dev.fencelock.sample;

import dev.fencelock.jdbc.FenceGuard;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;

/** What the sample wrote, read straight from its tables (outside any lock, so unfenced). */
final class InventoryDatabase {

    private final JdbcClient jdbc;

    private final FenceGuard guard;

    InventoryDatabase(JdbcClient jdbc, FenceGuard guard) {
        this.jdbc = jdbc;
        this.guard = guard;
    }

    long fenceToken(String resource) {
        return this.jdbc
                .sql("SELECT token FROM fencelock_fence WHERE resource = ?")
                .param(this.guard.rowKey(resource))
                .query(Long.class)
                .optional()
                .orElse(0L);
    }

    int quantity(String sku) {
        return this.jdbc
                .sql("SELECT quantity FROM inventory_stock WHERE sku = ?")
                .param(sku)
                .query(Integer.class)
                .single();
    }

    Optional<Long> rowToken(String sku) {
        return this.jdbc
                .sql("SELECT fence_token FROM inventory_stock WHERE sku = ?")
                .param(sku)
                .query(Long.class)
                .optional();
    }

    int reservations(String sku) {
        return this.jdbc
                .sql("SELECT count(*) FROM inventory_reservation WHERE sku = ?")
                .param(sku)
                .query(Integer.class)
                .single();
    }
}
