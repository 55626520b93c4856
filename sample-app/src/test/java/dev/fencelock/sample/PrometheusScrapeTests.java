package dev.fencelock.sample;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

/**
 * What Prometheus scrapes from the sample: {@code /actuator/prometheus} serves FenceLock's meters
 * under the names docs/grafana-dashboard.json and docs/prometheus-alerts.yml query, with the
 * histogram buckets the latency panels need. (H2 and an etcd of the test kit; scripts/demo.sh
 * scrapes two instances with a real Prometheus.)
 */
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = "fencelock.fencing.scope=prometheus-tests-${random.uuid}")
@Import(TestEtcdConfiguration.class)
class PrometheusScrapeTests {

    @LocalServerPort
    private int port;

    @Test
    void prometheusEndpointShowsTheLockMetersOfAReservation() {
        InventoryClient inventory = new InventoryClient(this.port);
        assertThat(inventory.put("scraped", 5).getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(inventory.reserve("scraped", 1, 0).getStatusCode()).isEqualTo(HttpStatus.OK);

        ResponseEntity<String> scrape = RestClient.create("http://127.0.0.1:" + this.port)
                .get()
                .uri("/actuator/prometheus")
                .retrieve()
                .toEntity(String.class);

        assertThat(scrape.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(scrape.getBody())
                .contains("fencelock_acquire_seconds_bucket{lock=\"'stock:' + #sku\",outcome=\"acquired\",le=")
                .contains("fencelock_commit_seconds_bucket{operation=\"acquire\",le=")
                .contains("fencelock_lost_total{lock=\"'stock:' + #sku\"} 0.0")
                .contains("fencelock_fencing_rejected_total{lock=\"'stock:' + #sku\"} 0.0")
                .contains("fencelock_active ")
                .contains("fencelock_hot_waiters{rank=\"1\"}");
    }
}
