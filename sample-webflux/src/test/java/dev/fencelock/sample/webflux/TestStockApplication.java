package dev.fencelock.sample.webflux;

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
        SpringApplication.from(StockApplication::main)
                .with(TestEtcdConfiguration.class)
                .run(args);
    }
}
