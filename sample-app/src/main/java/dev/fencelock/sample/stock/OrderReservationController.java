package dev.fencelock.sample.stock;

import dev.fencelock.FencingContext;
import dev.fencelock.annotation.FencedEndpoint;
import java.time.Duration;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * Reservations made for an order by the service that owns orders, while it holds the order's lock:
 * the caller's fence of {@code order:<id>} arrives in the {@code FenceLock-Fence} header, and the
 * reservation's write presents it to this service's database next to the SKU's own fence. A caller
 * that lost the order's lock to a newer holder (paused past its lease) is refused there with 409;
 * a call without the header is refused with 428.
 */
@RestController
class OrderReservationController {

    private final StockService service;

    OrderReservationController(StockService service) {
        this.service = service;
    }

    @FencedEndpoint
    @PostMapping("/api/orders/{orderId}/stock/{sku}/reservations")
    Reservation reserve(
            @PathVariable String orderId, @PathVariable String sku, @RequestBody ReservationRequest request) {
        StockController.checkSku(sku);
        if (FencingContext.forResource("order:" + orderId).isEmpty()) {
            throw new InvalidRequestException("the fence header carries no fence of order:" + orderId);
        }
        Integer quantity = request.quantity();
        if (quantity == null || quantity < 1) {
            throw new InvalidRequestException("quantity must be 1 or more, was " + quantity);
        }
        return this.service.reserve(sku, quantity, Duration.ZERO);
    }
}
