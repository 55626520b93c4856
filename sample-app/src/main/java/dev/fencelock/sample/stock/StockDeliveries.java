package dev.fencelock.sample.stock;

import dev.fencelock.annotation.DistributedLock;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Deliveries, written through JPA: the SKU's lock, then one short transaction that reads the
 * entity and updates it. The update carries the lock's fencing token in two places, the fence
 * table (the fenced {@code DataSource}, as for any write) and the row ({@code @FencingToken}).
 */
@Service
public class StockDeliveries {

    private final StockItems items;

    StockDeliveries(StockItems items) {
        this.items = items;
    }

    @DistributedLock(key = "'stock:' + #sku", waitTimeout = "${inventory.lock-wait-timeout:5s}")
    @Transactional
    public StockLevel receive(String sku, int quantity) {
        StockItem item = this.items.findById(sku).orElseThrow(() -> new UnknownSkuException(sku));
        item.receive(quantity);
        // Flushed here, so a refused update fails as FencingTokenRejectedException, not at commit.
        this.items.saveAndFlush(item);
        return new StockLevel(sku, item.quantity());
    }
}
