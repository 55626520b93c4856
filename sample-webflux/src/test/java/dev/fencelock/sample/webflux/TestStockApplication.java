package dev.fencelock.sample.webflux;

import java.util.Arrays;
import java.util.UUID;
import org.springframework.boot.SpringApplication;

/**
 * Runs the reactive stock service for local development with its own etcd: the application's {@code
 * main} with {@link TestEtcdConfiguration} added, from the test class path. Run it from the IDE, or
 * with {@code mvn -pl sample-webflux spring-boot:test-run
 * -Dspring-boot.run.main-class=dev.fencelock.sample.webflux.TestStockApplication}.
 */
public final class TestStockApplication {

    private TestStockApplication() {}

    public static void main(String[] args) {
        // Each run's etcd starts its revisions afresh while PostgreSQL keeps the fence rows of earlier
        // runs: a scope of the run's own keeps their tokens apart, as for any two etcd clusters.
        String[] withScope = Arrays.copyOf(args, args.length + 1);
        withScope[args.length] = "--fencelock.fencing.scope=local-" + UUID.randomUUID();
        SpringApplication.from(StockApplication::main)
                .with(TestEtcdConfiguration.class)
                .run(withScope);
    }
}
