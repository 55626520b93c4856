package dev.fencelock.http;

import dev.fencelock.annotation.FencedEndpoint;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The WebFlux handler of docs/integrations.md, compiled (not a bean anywhere);
 * FencedEndpointWebFluxTests runs the same pattern against PostgreSQL.
 */
class WebFluxReservationSnippet {

    private final TransactionTemplate transactions;

    private final JdbcTemplate jdbc;

    WebFluxReservationSnippet(TransactionTemplate transactions, JdbcTemplate jdbc) {
        this.transactions = transactions;
        this.jdbc = jdbc;
    }

    @FencedEndpoint
    @PostMapping("/api/stock/{sku}/reservations")
    Mono<Void> reserve(@PathVariable String sku) {
        // Runs on a bounded elastic thread; the fenced DataSource presents the caller's fence there.
        return Mono.fromRunnable(() -> this.transactions.executeWithoutResult(
                        status -> this.jdbc.update("UPDATE stock SET reserved = reserved + 1 WHERE sku = ?", sku)))
                .subscribeOn(Schedulers.boundedElastic())
                .then();
    }
}
