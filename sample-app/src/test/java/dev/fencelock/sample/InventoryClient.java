package dev.fencelock.sample;

import com.jayway.jsonpath.JsonPath;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

/** The sample's HTTP API as a test sees it: every response is returned, errors included. */
final class InventoryClient {

    private final RestClient http;

    /** The API's root, for the endpoints over several SKUs. */
    private final RestClient api;

    InventoryClient(int port) {
        this.http = RestClient.builder()
                .baseUrl("http://127.0.0.1:" + port + "/api/stock/")
                .defaultStatusHandler(status -> true, (request, response) -> {})
                .build();
        this.api = RestClient.builder()
                .baseUrl("http://127.0.0.1:" + port + "/api/")
                .defaultStatusHandler(status -> true, (request, response) -> {})
                .build();
    }

    ResponseEntity<String> put(String sku, int quantity) {
        return this.http
                .put()
                .uri("{sku}", sku)
                .contentType(MediaType.APPLICATION_JSON)
                .body("{\"quantity\": " + quantity + "}")
                .retrieve()
                .toEntity(String.class);
    }

    ResponseEntity<String> get(String sku) {
        return this.http.get().uri("{sku}", sku).retrieve().toEntity(String.class);
    }

    ResponseEntity<String> reserve(String sku, int quantity, long holdMillis) {
        return this.http
                .post()
                .uri("{sku}/reservations", sku)
                .contentType(MediaType.APPLICATION_JSON)
                .body("{\"quantity\": " + quantity + ", \"holdMillis\": " + holdMillis + "}")
                .retrieve()
                .toEntity(String.class);
    }

    ResponseEntity<String> deliver(String sku, int quantity) {
        return this.http
                .post()
                .uri("{sku}/deliveries", sku)
                .contentType(MediaType.APPLICATION_JSON)
                .body("{\"quantity\": " + quantity + "}")
                .retrieve()
                .toEntity(String.class);
    }

    ResponseEntity<String> reserveWithBody(String sku, String body) {
        return this.http
                .post()
                .uri("{sku}/reservations", sku)
                .contentType(MediaType.APPLICATION_JSON)
                .body(body)
                .retrieve()
                .toEntity(String.class);
    }

    ResponseEntity<String> transfer(String from, String to, int quantity) {
        return this.api
                .post()
                .uri("stock-transfers")
                .contentType(MediaType.APPLICATION_JSON)
                .body("{\"from\": \"" + from + "\", \"to\": \"" + to + "\", \"quantity\": " + quantity + "}")
                .retrieve()
                .toEntity(String.class);
    }

    ResponseEntity<String> summary() {
        return this.api.get().uri("stock-summary").retrieve().toEntity(String.class);
    }

    static <T> T read(ResponseEntity<String> response, String path) {
        return JsonPath.read(response.getBody(), path);
    }

    static String problemType(ResponseEntity<String> response) {
        return read(response, "$.type");
    }
}
