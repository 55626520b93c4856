package dev.fencelock.autoconfigure.web;

import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/** FenceLock's exceptions as a WebFlux application's callers see them. */
class FenceLockProblemDetailsWebFluxTests {

    private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockProblemDetailsAutoConfiguration.class,
                    JacksonAutoConfiguration.class,
                    CodecsAutoConfiguration.class,
                    WebFluxAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory")
            .withUserConfiguration(FailingController.class);

    @Test
    void staleWriteShouldBeAConflictNamingTheResourceTheTokenAndWhoRefusedIt() {
        this.runner.run((context) -> client(context)
                .get()
                .uri("/stale")
                .exchange()
                .expectStatus()
                .isEqualTo(HttpStatus.CONFLICT)
                .expectHeader()
                .contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody()
                .jsonPath("$.type")
                .isEqualTo("https://fencelock.dev/problems/stale-fencing-token")
                .jsonPath("$.resource")
                .isEqualTo("stock:apple")
                .jsonPath("$.fencingToken")
                .isEqualTo(7)
                .jsonPath("$.acceptedToken")
                .isEqualTo(9)
                .jsonPath("$.refusedBy")
                .isEqualTo("database"));
    }

    @Test
    void lostLockShouldBeAConflict() {
        this.runner.run((context) -> client(context)
                .get()
                .uri("/lost-alone")
                .exchange()
                .expectStatus()
                .isEqualTo(HttpStatus.CONFLICT)
                .expectBody()
                .jsonPath("$.type")
                .isEqualTo("https://fencelock.dev/problems/lock-lost")
                .jsonPath("$.refusedBy")
                .isEqualTo("client"));
    }

    @Test
    void busyLockShouldBeLocked() {
        this.runner.run((context) -> client(context)
                .get()
                .uri("/busy")
                .exchange()
                .expectStatus()
                .isEqualTo(HttpStatus.LOCKED)
                .expectBody()
                .jsonPath("$.resource")
                .isEqualTo("stock:pear"));
    }

    @Test
    void unavailableStoreShouldBeServiceUnavailableWithRetryAfter() {
        this.runner.run((context) -> client(context)
                .get()
                .uri("/unavailable")
                .exchange()
                .expectStatus()
                .isEqualTo(HttpStatus.SERVICE_UNAVAILABLE)
                .expectHeader()
                .valueEquals("Retry-After", "5")
                .expectBody()
                .jsonPath("$.type")
                .isEqualTo("https://fencelock.dev/problems/lock-backend-unavailable"));
    }

    @Test
    void applicationsOwnExceptionHandlerShouldAnswerFirst() {
        this.runner
                .withUserConfiguration(ApplicationLockLostHandler.class)
                .run((context) -> client(context)
                        .get()
                        .uri("/lost")
                        .exchange()
                        .expectStatus()
                        .isEqualTo(HttpStatus.I_AM_A_TEAPOT));
    }

    @Test
    void runWhenDisabledShouldLeaveTheExceptionsToWebFluxsDefault() {
        this.runner
                .withPropertyValues("fencelock.problem-details.enabled=false")
                .run((context) -> client(context)
                        .get()
                        .uri("/lost")
                        .exchange()
                        .expectStatus()
                        .isEqualTo(HttpStatus.INTERNAL_SERVER_ERROR));
    }

    private static WebTestClient client(ApplicationContext context) {
        return WebTestClient.bindToApplicationContext(context).build();
    }
}
