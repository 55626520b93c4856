package dev.fencelock.sample.stock;

import dev.fencelock.jdbc.FencedWrites;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The {@code inventory_stock} and {@code inventory_reservation} tables.
 *
 * <p>Every write to a stock row is conditional on its {@code fence_token} column and stores the
 * writer's token there, so the row itself refuses a writer older than its last one, in addition
 * to the fence table the fenced {@code DataSource} checks once per transaction.
 */
@Repository
class StockRepository {

    private static final String FENCED = " AND " + FencedWrites.condition("fence_token");

    private final JdbcClient jdbc;

    StockRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    Optional<Integer> quantity(String sku) {
        return this.jdbc
                .sql("SELECT quantity FROM inventory_stock WHERE sku = ?")
                .param(sku)
                .query(Integer.class)
                .optional();
    }

    StockSummary summary() {
        return this.jdbc
                .sql("SELECT COUNT(*) AS skus, COALESCE(SUM(quantity), 0) AS units FROM inventory_stock")
                .query((rows, row) -> new StockSummary(rows.getLong("skus"), rows.getLong("units")))
                .single();
    }

    /** Sets the quantity if the row's last writer had a token not larger than {@code token}. */
    int update(String sku, int quantity, long token) {
        return this.jdbc
                .sql("UPDATE inventory_stock SET quantity = ?, fence_token = ? WHERE sku = ?" + FENCED)
                .params(quantity, token, sku, token)
                .update();
    }

    void insert(String sku, int quantity, long token) {
        this.jdbc
                .sql("INSERT INTO inventory_stock (sku, quantity, fence_token) VALUES (?, ?, ?)")
                .params(sku, quantity, token)
                .update();
    }

    void recordReservation(String sku, int quantity, long token) {
        this.jdbc
                .sql("INSERT INTO inventory_reservation (sku, quantity, fencing_token) VALUES (?, ?, ?)")
                .params(sku, quantity, token)
                .update();
    }
}
