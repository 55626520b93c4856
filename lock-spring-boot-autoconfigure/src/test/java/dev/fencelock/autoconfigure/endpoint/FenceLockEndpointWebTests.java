package dev.fencelock.autoconfigure.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.hamcrest.Matchers.closeTo;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.ResourceName;
import dev.fencelock.audit.LockAuditLog;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.audit.FenceLockAuditAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import dev.fencelock.memory.InMemoryLockBackend;
import dev.fencelock.spi.AcquireCommand;
import dev.fencelock.spi.BackendHealth;
import dev.fencelock.spi.BackendLock;
import dev.fencelock.spi.LockAdministration;
import dev.fencelock.spi.LockBackend;
import dev.fencelock.spi.QueueEntry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.jackson.JacksonEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementContextAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.servlet.autoconfigure.actuate.web.ServletManagementContextAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

/**
 * {@code DELETE /actuator/fencelock/{resource}} through Spring MVC, as an operator calls it:
 * refused unless {@code management.endpoint.fencelock.access=unrestricted}, and audited with the
 * caller's principal either way.
 */
class FenceLockEndpointWebTests {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockAuditAutoConfiguration.class,
                    FenceLockEndpointAutoConfiguration.class,
                    EndpointAutoConfiguration.class,
                    JacksonEndpointAutoConfiguration.class,
                    WebEndpointAutoConfiguration.class,
                    ManagementContextAutoConfiguration.class,
                    ServletManagementContextAutoConfiguration.class,
                    JacksonAutoConfiguration.class,
                    HttpMessageConvertersAutoConfiguration.class,
                    DispatcherServletAutoConfiguration.class,
                    WebMvcAutoConfiguration.class))
            // As SpringApplication does, so that Boot's access conditions read "unrestricted" like a real application.
            .withInitializer(
                    (context) -> context.getEnvironment().setConversionService(new ApplicationConversionService()))
            .withPropertyValues("fencelock.backend=in-memory", "management.endpoints.web.exposure.include=fencelock");

    private final ListAppender<ILoggingEvent> audit = new ListAppender<>();

    @BeforeEach
    void captureAuditLog() {
        this.audit.start();
        ((Logger) LoggerFactory.getLogger(LockAuditLog.LOGGER_NAME)).addAppender(this.audit);
    }

    @AfterEach
    void stopCapturing() {
        ((Logger) LoggerFactory.getLogger(LockAuditLog.LOGGER_NAME)).detachAppender(this.audit);
        SecurityContextHolder.clearContext();
    }

    @Test
    void deleteShouldBeRefusedByDefaultWhileReadsWork() {
        this.runner.run((context) -> {
            MockMvc mvc = mvc(context);
            try (LockLease lease = context.getBean(LockClient.class).acquire(LockRequest.of("order:1"))) {
                mvc.perform(delete("/actuator/fencelock/order:1")).andExpect(status().isMethodNotAllowed());

                assertThat(lease.isValid()).isTrue();
                mvc.perform(get("/actuator/fencelock/order:1"))
                        .andExpect(status().isOk())
                        .andExpect(jsonPath("$.holder.fencingToken").value(lease.fencingToken()));
            }
        });
    }

    @Test
    void readShouldListTheHotResourcesByRankUpToTheConfiguredSize() {
        this.runner.withPropertyValues("fencelock.hot-resources.size=2").run((context) -> {
            MockMvc mvc = mvc(context);
            LockClient client = context.getBean(LockClient.class);
            client.acquire(LockRequest.of("order:cold")).release();
            try (LockLease held = client.acquire(
                    LockRequest.builder("order:hot").requestId("holder").build())) {
                assertThat(client.tryAcquire(LockRequest.of("order:hot"))).isEmpty();
                client.acquireAsync(LockRequest.builder("order:hot")
                                .waitTimeout(Duration.ofMillis(200))
                                .build())
                        .exceptionally((failure) -> null)
                        .get(10, TimeUnit.SECONDS);

                mvc.perform(get("/actuator/fencelock"))
                        .andExpect(status().isOk())
                        .andExpect(jsonPath("$.locks[0].resource").value("order:hot"))
                        .andExpect(jsonPath("$.hotResources.length()").value(2))
                        .andExpect(jsonPath("$.hotResources[0].rank").value(1))
                        .andExpect(jsonPath("$.hotResources[0].resource").value("order:hot"))
                        // Decayed with a one-minute half-life: two busy ends, a moment ago.
                        .andExpect(jsonPath("$.hotResources[0].busy", closeTo(2.0, 0.1)))
                        .andExpect(jsonPath("$.hotResources[1].rank").value(2));
            }
        });
    }

    @Test
    void deleteShouldBeRefusedWhenOnlyTheDefaultOfAllEndpointsIsUnrestricted() {
        this.runner
                .withPropertyValues("management.endpoints.access.default=unrestricted")
                .run((context) -> {
                    MockMvc mvc = mvc(context);
                    try (LockLease lease = context.getBean(LockClient.class).acquire(LockRequest.of("order:1"))) {
                        mvc.perform(delete("/actuator/fencelock/order:1").principal(() -> "mallory"))
                                .andExpect(status().isBadRequest());

                        assertThat(lease.isValid()).isTrue();
                        assertThat(forceReleaseLines())
                                .singleElement()
                                .satisfies((line) -> assertThat(line)
                                        .startsWith("event=force-release outcome=refused resource=\"order:1\"")
                                        .contains(" principal=\"mallory\""));
                    }
                });
    }

    @Test
    void deleteShouldForceReleaseWhenUnrestrictedAndAuditThePrincipal() {
        this.runner
                .withPropertyValues("management.endpoint.fencelock.access=unrestricted")
                .run((context) -> {
                    MockMvc mvc = mvc(context);
                    LockLease lease = context.getBean(LockClient.class).acquire(LockRequest.of("order:1"));

                    mvc.perform(delete("/actuator/fencelock/order:1").principal(() -> "alice"))
                            .andExpect(status().isOk())
                            .andExpect(jsonPath("$.released").value(true))
                            .andExpect(jsonPath("$.removed.fencingToken").value(lease.fencingToken()));

                    assertThat(lease.isValid()).isFalse();
                    assertThat(forceReleaseLines())
                            .singleElement()
                            .satisfies((line) -> assertThat(line)
                                    .startsWith("event=force-release outcome=released resource=\"order:1\"")
                                    .contains(
                                            " leaseId=" + lease.leaseId(),
                                            " token=" + lease.fencingToken(),
                                            " principal=\"alice\""));
                });
    }

    @Test
    void principalShouldComeFromSpringSecurityWhenTheRequestCarriesNone() {
        this.runner
                .withPropertyValues("management.endpoint.fencelock.access=unrestricted")
                .run((context) -> {
                    MockMvc mvc = mvc(context);
                    context.getBean(LockClient.class).acquire(LockRequest.of("order:1"));
                    SecurityContextHolder.getContext()
                            .setAuthentication(new TestingAuthenticationToken("bob", null, "ROLE_LOCK_ADMIN"));

                    mvc.perform(delete("/actuator/fencelock/order:1")).andExpect(status().isOk());

                    assertThat(forceReleaseLines())
                            .singleElement()
                            .satisfies((line) -> assertThat(line).contains(" principal=\"bob\""));
                });
    }

    @Test
    void deleteOfAFreeResourceShouldBeAuditedAsNoneWithAnAnonymousPrincipal() {
        this.runner
                .withPropertyValues("management.endpoint.fencelock.access=unrestricted")
                .run((context) -> {
                    mvc(context)
                            .perform(delete("/actuator/fencelock/order:2"))
                            .andExpect(status().isOk())
                            .andExpect(jsonPath("$.released").value(false));

                    assertThat(forceReleaseLines())
                            .singleElement()
                            .satisfies((line) -> assertThat(line)
                                    .startsWith("event=force-release outcome=none resource=\"order:2\"")
                                    .contains(" principal=\"anonymous\""));
                });
    }

    @Test
    void deleteThatOutlivesTheWaitShouldBeAuditedAsTimedOutAndAgainWhenItCommits() {
        HeldBackForceRelease backend = new HeldBackForceRelease();
        this.runner
                .withBean(LockBackend.class, () -> backend)
                .withPropertyValues(
                        "management.endpoint.fencelock.access=unrestricted", "fencelock.etcd.request-timeout=100ms")
                .run((context) -> {
                    MockMvc mvc = mvc(context);
                    LockLease lease = context.getBean(LockClient.class).acquire(LockRequest.of("order:1"));

                    // MockMvc has no error page: the exception that a server answers with 500 comes out as is.
                    assertThatException()
                            .isThrownBy(() -> mvc.perform(
                                    delete("/actuator/fencelock/order:1").principal(() -> "carol")))
                            .withRootCauseInstanceOf(LockBackendUnavailableException.class)
                            .withMessageContaining("may still take effect");

                    assertThat(forceReleaseLines())
                            .singleElement()
                            .satisfies((line) -> assertThat(line)
                                    .startsWith("event=force-release outcome=timed-out resource=\"order:1\"")
                                    .contains(" principal=\"carol\"", "outcome unknown"));
                    backend.commit();
                    assertThat(lease.isValid()).isFalse();
                    assertThat(forceReleaseLines())
                            .hasSize(2)
                            .last()
                            .satisfies((line) -> assertThat(line)
                                    .startsWith("event=force-release outcome=released resource=\"order:1\"")
                                    .contains(" late=true", " token=" + lease.fencingToken(), " principal=\"carol\""));
                });
    }

    private List<String> forceReleaseLines() {
        return this.audit.list.stream()
                .map(ILoggingEvent::getFormattedMessage)
                .filter((line) -> line.startsWith("event=force-release"))
                .toList();
    }

    /** An in-memory store whose force-release commits only when the test says so, as a slow etcd would. */
    static final class HeldBackForceRelease implements LockBackend, LockAdministration {

        final InMemoryLockBackend delegate = new InMemoryLockBackend();

        private final CompletableFuture<Void> released = new CompletableFuture<>();

        void commit() {
            this.released.complete(null);
        }

        @Override
        public CompletableFuture<BackendLock> acquire(AcquireCommand command) {
            return this.delegate.acquire(command);
        }

        @Override
        public CompletableFuture<Long> renew(BackendLock lock) {
            return this.delegate.renew(lock);
        }

        @Override
        public CompletableFuture<Boolean> release(BackendLock lock) {
            return this.delegate.release(lock);
        }

        @Override
        public String describe() {
            return "held-back " + this.delegate.describe();
        }

        @Override
        public void close() {
            this.delegate.close();
        }

        @Override
        public String instanceId() {
            return this.delegate.instanceId();
        }

        @Override
        public CompletableFuture<BackendHealth> health(Duration timeout) {
            return this.delegate.health(timeout);
        }

        @Override
        public CompletableFuture<List<QueueEntry>> queue(ResourceName resource) {
            return this.delegate.queue(resource);
        }

        @Override
        public CompletableFuture<Optional<QueueEntry>> forceRelease(ResourceName resource) {
            return this.released.thenCompose((ignored) -> this.delegate.forceRelease(resource));
        }
    }

    private static MockMvc mvc(WebApplicationContext context) {
        return MockMvcBuilders.webAppContextSetup(context).build();
    }
}
