package dev.fencelock.sample.stock;

import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.jdbc.FencedWrites;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Moves units from one SKU to another while this instance holds both SKUs' locks. {@code keys}
 * takes the two locks together: in one order whatever the direction (two opposite transfers never
 * wait for each other), under one wait timeout, and neither when one stays busy. Each lock's fence
 * is on {@link dev.fencelock.FencingContext}, so the fenced {@code DataSource} presents both tokens
 * before the transaction's first statement, and each row's update carries its own SKU's token.
 */
@Service
public class StockTransfers {

    private final StockRepository stock;

    StockTransfers(StockRepository stock) {
        this.stock = stock;
    }

    @DistributedLock(
            keys = {"'stock:' + #from", "'stock:' + #to"},
            waitTimeout = "${inventory.lock-wait-timeout:5s}")
    @Transactional
    public Transfer transfer(String from, String to, int quantity) {
        int available = this.stock.quantity(from).orElseThrow(() -> new UnknownSkuException(from));
        int receiving = this.stock.quantity(to).orElseThrow(() -> new UnknownSkuException(to));
        if (available < quantity) {
            throw new InsufficientStockException(from, available, quantity);
        }
        write(from, available - quantity);
        write(to, receiving + quantity);
        return new Transfer(new StockLevel(from, available - quantity), new StockLevel(to, receiving + quantity));
    }

    private void write(String sku, int quantity) {
        String resource = StockService.resource(sku);
        FencedWrites.requireAccepted(this.stock.update(sku, quantity, FencedWrites.token(resource)), resource);
    }
}
