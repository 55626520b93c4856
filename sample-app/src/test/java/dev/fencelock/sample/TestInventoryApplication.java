package dev.fencelock.sample;

import org.springframework.boot.SpringApplication;

/**
 * Runs the inventory service for local development with its own etcd, the Spring Boot way: the
 * application's {@code main} with {@link TestEtcdConfiguration} added, from the test class path, so
 * nothing of it ships in the application's jar. Run it from the IDE, or with {@code mvn -pl
 * sample-app spring-boot:test-run -Dspring-boot.run.main-class=dev.fencelock.sample.TestInventoryApplication}.
 */
public final class TestInventoryApplication {

    private TestInventoryApplication() {}

    public static void main(String[] args) {
        SpringApplication.from(InventoryApplication::main)
                .with(TestEtcdConfiguration.class)
                .run(args);
    }
}
