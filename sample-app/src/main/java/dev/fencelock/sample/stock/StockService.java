package dev.fencelock.sample.stock;

import dev.fencelock.LockMode;
import dev.fencelock.annotation.DistributedLock;
import dev.fencelock.jdbc.FencedWrites;
import java.time.Duration;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Stock levels and reservations, each change made under the SKU's distributed lock and fenced in
 * the database.
 *
 * <p>A reservation reads the stock in one transaction, optionally holds the lock for a while, and
 * writes the new level in a second transaction. The gap is deliberate: it is the read-modify-write
 * window in which a paused instance can lose its lock while another instance reserves, and it
 * keeps no database transaction open while the lock is held. The write is safe anyway: the fenced
 * {@code DataSource} checks the token against the fence table before the transaction's first
 * statement, and the {@code UPDATE} carries the row's own token condition. A stale write therefore
 * changes nothing and fails with {@code FencingTokenRejectedException}, which says whether this
 * instance or the database refused it.
 */
@Service
public class StockService {

    private final StockRepository stock;
    private final TransactionTemplate transactions;

    StockService(StockRepository stock, TransactionTemplate transactions) {
        this.stock = stock;
        this.transactions = transactions;
    }

    static String resource(String sku) {
        return "stock:" + sku;
    }

    /**
     * The stock of {@code sku}, read under the SKU's shared lock: it waits for a change or a
     * reservation in progress (which holds the lock exclusively, across its read and its write), so
     * it never reports a level such a change is about to replace, and reads never wait for each
     * other. It needs no transaction: under nothing but shared locks, the fenced {@code DataSource}
     * lets reads through unguarded (and would refuse a write).
     */
    @DistributedLock(key = "'stock:' + #sku", mode = LockMode.SHARED, waitTimeout = "${inventory.lock-wait-timeout:5s}")
    public StockLevel level(String sku) {
        return new StockLevel(sku, this.stock.quantity(sku).orElseThrow(() -> new UnknownSkuException(sku)));
    }

    /**
     * How many SKUs there are and how many units they hold together. The scan is the expensive kind
     * of read: a semaphore of two permits lets at most two run at once, over every instance. Permits
     * are not a fence (two holders at once), so it only reads.
     */
    @DistributedLock(name = "inventory-summary", permits = 2, waitTimeout = "${inventory.lock-wait-timeout:5s}")
    public StockSummary summary() {
        return this.stock.summary();
    }

    @DistributedLock(key = "'stock:' + #sku", waitTimeout = "${inventory.lock-wait-timeout:5s}")
    @Transactional
    public StockLevel set(String sku, int quantity) {
        long token = FencedWrites.token(resource(sku));
        if (this.stock.update(sku, quantity, token) == 0) {
            if (this.stock.quantity(sku).isPresent()) {
                FencedWrites.requireAccepted(0, resource(sku));
            }
            this.stock.insert(sku, quantity, token);
        }
        return new StockLevel(sku, quantity);
    }

    @DistributedLock(key = "'stock:' + #sku", waitTimeout = "${inventory.lock-wait-timeout:5s}")
    public Reservation reserve(String sku, int quantity, Duration hold) {
        Integer available =
                this.transactions.execute(status -> this.stock.quantity(sku).orElse(null));
        if (available == null) {
            throw new UnknownSkuException(sku);
        }
        if (available < quantity) {
            throw new InsufficientStockException(sku, available, quantity);
        }
        holdLock(hold);
        // A stale write fails with FencingTokenRejectedException, which says who refused it.
        return this.transactions.execute(status -> write(sku, available - quantity, quantity));
    }

    private Reservation write(String sku, int remaining, int reserved) {
        long token = FencedWrites.token(resource(sku));
        FencedWrites.requireAccepted(this.stock.update(sku, remaining, token), resource(sku));
        this.stock.recordReservation(sku, reserved, token);
        return new Reservation(sku, remaining, token);
    }

    private static void holdLock(Duration hold) {
        if (hold.isZero()) {
            return;
        }
        try {
            Thread.sleep(hold.toMillis());
        } catch (InterruptedException ex) {
            // FenceLock interrupts a method whose lock is lost; its caller then gets LockLostException.
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Reservation interrupted while holding the lock", ex);
        }
    }
}
