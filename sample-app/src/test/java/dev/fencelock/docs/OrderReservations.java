package dev.fencelock.docs;

import dev.fencelock.annotation.DistributedLock;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

/** The calling side of docs/integrations.md#the-fence-across-services: an orders service that reserves stock. */
class OrderReservations {

    private final RestClient inventory;

    OrderReservations(RestClient.Builder builder) {
        this.inventory = builder.baseUrl("http://inventory:8080").build();
    }

    // The call carries the order's fence: the inventory's database refuses it once a newer holder wrote.
    @DistributedLock(key = "'order:' + #orderId")
    public void reserveStock(String orderId, String sku, int quantity) {
        this.inventory
                .post()
                .uri("/api/orders/{orderId}/stock/{sku}/reservations", orderId, sku)
                .contentType(MediaType.APPLICATION_JSON)
                .body("{\"quantity\": " + quantity + "}")
                .retrieve()
                .toBodilessEntity();
    }
}
