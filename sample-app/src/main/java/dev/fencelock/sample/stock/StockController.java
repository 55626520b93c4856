package dev.fencelock.sample.stock;

import java.time.Duration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** The inventory HTTP API; failures become problem details in {@link InventoryProblems}. */
@RestController
@RequestMapping("/api/stock/{sku}")
class StockController {

    static final long MAX_HOLD_MILLIS = 60_000;

    /** Length of the {@code sku} column. */
    static final int MAX_SKU_LENGTH = 64;

    private final StockService service;

    private final StockDeliveries deliveries;

    StockController(StockService service, StockDeliveries deliveries) {
        this.service = service;
        this.deliveries = deliveries;
    }

    @GetMapping
    StockLevel get(@PathVariable String sku) {
        checkSku(sku);
        return this.service.level(sku);
    }

    @PutMapping
    StockLevel put(@PathVariable String sku, @RequestBody StockChange change) {
        checkSku(sku);
        Integer quantity = change.quantity();
        if (quantity == null || quantity < 0) {
            throw new InvalidRequestException("quantity must be 0 or more, was " + quantity);
        }
        return this.service.set(sku, quantity);
    }

    @PostMapping("/reservations")
    Reservation reserve(@PathVariable String sku, @RequestBody ReservationRequest request) {
        checkSku(sku);
        Integer quantity = request.quantity();
        if (quantity == null || quantity < 1) {
            throw new InvalidRequestException("quantity must be 1 or more, was " + quantity);
        }
        long hold = (request.holdMillis() != null) ? request.holdMillis() : 0;
        if (hold < 0 || hold > MAX_HOLD_MILLIS) {
            throw new InvalidRequestException("holdMillis must be between 0 and " + MAX_HOLD_MILLIS + ", was " + hold);
        }
        return this.service.reserve(sku, quantity, Duration.ofMillis(hold));
    }

    @PostMapping("/deliveries")
    StockLevel deliver(@PathVariable String sku, @RequestBody DeliveryRequest delivery) {
        checkSku(sku);
        Integer quantity = delivery.quantity();
        if (quantity == null || quantity < 1) {
            throw new InvalidRequestException("quantity must be 1 or more, was " + quantity);
        }
        return this.deliveries.receive(sku, quantity);
    }

    static void checkSku(String sku) {
        if (sku.length() > MAX_SKU_LENGTH) {
            throw new InvalidRequestException("sku must have at most " + MAX_SKU_LENGTH + " characters");
        }
    }
}
