package dev.fencelock.sample.webflux;

import com.jayway.jsonpath.JsonPath;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/** The stock API over real HTTP, as a client sees it: status and body, whatever the status. */
final class StockClient {

    private final WebClient http;

    StockClient(int port) {
        this.http = WebClient.create("http://127.0.0.1:" + port);
    }

    Mono<ResponseEntity<String>> set(String sku, int quantity) {
        return this.http
                .put()
                .uri("/stock/{sku}", sku)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("quantity", quantity))
                .exchangeToMono(response -> response.toEntity(String.class));
    }

    Mono<ResponseEntity<String>> reserve(String sku, int quantity, long holdMillis) {
        return this.http
                .post()
                .uri("/stock/{sku}/reserve?quantity={quantity}&holdMillis={hold}", sku, quantity, holdMillis)
                .exchangeToMono(response -> response.toEntity(String.class));
    }

    Mono<ResponseEntity<String>> level(String sku) {
        return this.http.get().uri("/stock/{sku}", sku).exchangeToMono(response -> response.toEntity(String.class));
    }

    static <T> T read(ResponseEntity<String> response, String path) {
        return JsonPath.read(response.getBody(), path);
    }

    static long readLong(ResponseEntity<String> response, String path) {
        return ((Number) read(response, path)).longValue();
    }
}
