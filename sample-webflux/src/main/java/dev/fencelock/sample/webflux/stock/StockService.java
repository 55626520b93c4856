package dev.fencelock.sample.webflux.stock;

import dev.fencelock.FencingContext;
import dev.fencelock.FencingContext.Fence;
import dev.fencelock.LockException;
import dev.fencelock.annotation.DistributedLock;
import io.r2dbc.spi.ConnectionFactory;
import java.time.Duration;
import java.util.List;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.ReactiveTransactionManager;
import org.springframework.transaction.reactive.TransactionalOperator;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Stock levels and reservations, each change made under the SKU's distributed lock and written
 * through R2DBC, where FenceLock's {@code FencedConnectionFactory} presents the lock's fencing token
 * before the first statement of each transaction.
 *
 * <p>The locked methods return a {@code Mono}: the lock is taken when the {@code Mono} is
 * subscribed to (without blocking a thread), the fence rides in its Reactor context, and the lock is
 * released when it completes, fails or is cancelled (a client that disconnects).
 *
 * <p>A reservation reads the stock in one transaction, optionally holds the lock for a while (the
 * slow step of a real service: a call to another service), and writes the new level in a second
 * transaction. No database transaction stays open while the lock is held without working, so a
 * holder that freezes there blocks nobody in the database; and the write is safe anyway: if a newer
 * holder wrote meanwhile, the fence table and the table's trigger refuse it, and the caller gets a
 * 409.
 */
@Service
public class StockService {

    private final DatabaseClient database;

    private final TransactionalOperator transactions;

    private final Scheduler holds;

    StockService(ConnectionFactory connectionFactory, ReactiveTransactionManager transactionManager, Scheduler holds) {
        this.database = DatabaseClient.create(connectionFactory);
        this.transactions = TransactionalOperator.create(transactionManager);
        this.holds = holds;
    }

    static String resource(String sku) {
        return "stock:" + sku;
    }

    /**
     * The stock of {@code sku}, read without a lock: it may show the level that a reservation in
     * progress is about to replace.
     */
    public Mono<StockLevel> level(String sku) {
        return quantity(sku)
                .map(quantity -> new StockLevel(sku, quantity))
                .switchIfEmpty(Mono.error(() -> new UnknownSkuException(sku)));
    }

    @DistributedLock(key = "'stock:' + #sku")
    public Mono<StockLevel> set(String sku, int quantity) {
        return token(sku)
                .flatMap(token -> this.database
                        .sql("INSERT INTO webflux_stock (sku, quantity, fence_token) VALUES (:sku, :quantity, :token)"
                                + " ON CONFLICT (sku) DO UPDATE"
                                + " SET quantity = EXCLUDED.quantity, fence_token = EXCLUDED.fence_token")
                        .bind("sku", sku)
                        .bind("quantity", quantity)
                        .bind("token", token)
                        .fetch()
                        .rowsUpdated())
                .as(this.transactions::transactional)
                .thenReturn(new StockLevel(sku, quantity));
    }

    /**
     * Reserves {@code quantity} of {@code sku}: reads the stock, waits {@code hold}, writes what is
     * left; answers with the fencing token the write was made with.
     */
    @DistributedLock(key = "'stock:' + #sku")
    public Mono<Reservation> reserve(String sku, int quantity, Duration hold) {
        return quantity(sku)
                .as(this.transactions::transactional)
                .switchIfEmpty(Mono.error(() -> new UnknownSkuException(sku)))
                .flatMap(available -> {
                    if (available < quantity) {
                        return Mono.error(new InsufficientStockException(sku, available, quantity));
                    }
                    int remaining = available - quantity;
                    return pause(hold).then(write(sku, remaining)).map(token -> new Reservation(sku, remaining, token));
                });
    }

    private Mono<Integer> quantity(String sku) {
        return this.database
                .sql("SELECT quantity FROM webflux_stock WHERE sku = :sku")
                .bind("sku", sku)
                .map(row -> row.get("quantity", Integer.class))
                .one();
    }

    private Mono<Void> pause(Duration hold) {
        return hold.isZero() ? Mono.empty() : Mono.delay(hold, this.holds).then();
    }

    /** Writes the new level and the token of the lock's fence, in a transaction of its own. */
    private Mono<Long> write(String sku, int quantity) {
        return token(sku)
                .flatMap(token -> this.database
                        .sql("UPDATE webflux_stock SET quantity = :quantity, fence_token = :token WHERE sku = :sku")
                        .bind("quantity", quantity)
                        .bind("token", token)
                        .bind("sku", sku)
                        .fetch()
                        .rowsUpdated()
                        .thenReturn(token))
                .as(this.transactions::transactional);
    }

    /** The token of this subscription's lock on {@code sku}: the locked call puts its fences in the Reactor context. */
    private static Mono<Long> token(String sku) {
        String resource = resource(sku);
        return Mono.deferContextual(context -> {
            List<Fence> fences = context.getOrDefault(FencingContext.CONTEXT_KEY, List.<Fence>of());
            for (int i = fences.size() - 1; i >= 0; i--) {
                if (fences.get(i).resource().equals(resource)) {
                    return Mono.just(fences.get(i).token());
                }
            }
            return Mono.error(new LockException("No fence for '" + resource + "' in the Reactor context: write"
                    + " under @DistributedLock(key = \"'stock:' + #sku\")"));
        });
    }
}
