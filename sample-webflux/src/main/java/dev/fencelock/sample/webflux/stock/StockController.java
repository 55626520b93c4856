package dev.fencelock.sample.webflux.stock;

import java.time.Duration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The stock API. {@code POST /stock/{sku}/reserve?quantity=1&holdMillis=0} holds the SKU's lock while
 * it reads, optionally waits, and writes; a client that disconnects meanwhile releases the lock.
 */
@RestController
@RequestMapping("/stock")
class StockController {

    /** The longest hold a caller may ask for. */
    static final Duration MAX_HOLD = Duration.ofMinutes(1);

    /** The stock table's key length. */
    static final int MAX_SKU_LENGTH = 64;

    private final StockService stock;

    StockController(StockService stock) {
        this.stock = stock;
    }

    @GetMapping("/{sku}")
    Mono<StockLevel> level(@PathVariable String sku) {
        return checkSku(sku).then(this.stock.level(sku));
    }

    @PutMapping("/{sku}")
    Mono<StockLevel> set(@PathVariable String sku, @RequestBody StockChange change) {
        if (change.quantity() < 0) {
            return Mono.error(new InvalidRequestException("quantity must not be negative"));
        }
        return checkSku(sku).then(this.stock.set(sku, change.quantity()));
    }

    @PostMapping("/{sku}/reserve")
    Mono<Reservation> reserve(
            @PathVariable String sku,
            @RequestParam(defaultValue = "1") int quantity,
            @RequestParam(defaultValue = "0") long holdMillis) {
        if (quantity < 1) {
            return Mono.error(new InvalidRequestException("quantity must be at least 1"));
        }
        if (holdMillis < 0 || holdMillis > MAX_HOLD.toMillis()) {
            return Mono.error(new InvalidRequestException("holdMillis must be between 0 and " + MAX_HOLD.toMillis()));
        }
        return checkSku(sku).then(this.stock.reserve(sku, quantity, Duration.ofMillis(holdMillis)));
    }

    private static Mono<Void> checkSku(String sku) {
        return (sku.length() > MAX_SKU_LENGTH)
                ? Mono.error(new InvalidRequestException("sku must be at most " + MAX_SKU_LENGTH + " characters"))
                : Mono.empty();
    }
}
