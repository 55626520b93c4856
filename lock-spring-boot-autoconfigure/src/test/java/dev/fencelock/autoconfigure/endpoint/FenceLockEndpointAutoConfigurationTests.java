package dev.fencelock.autoconfigure.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockMode;
import dev.fencelock.LockRequest;
import dev.fencelock.actuate.FenceLockEndpoint;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.autoconfigure.FenceLockProperties;
import dev.fencelock.autoconfigure.audit.FenceLockAuditAutoConfiguration;
import dev.fencelock.autoconfigure.etcd.FenceLockEtcdAutoConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.invoke.convert.ConversionServiceParameterValueMapper;
import org.springframework.boot.actuate.endpoint.web.EndpointMediaTypes;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointHttpMethod;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpointDiscoverer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class FenceLockEndpointAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    FenceLockEtcdAutoConfiguration.class,
                    FenceLockAutoConfiguration.class,
                    FenceLockAuditAutoConfiguration.class,
                    FenceLockEndpointAutoConfiguration.class))
            .withPropertyValues("fencelock.backend=in-memory");

    @Test
    void storeTimeoutShouldBeTwiceTheConfiguredBackendsOwnBound() {
        FenceLockProperties properties = new FenceLockProperties();
        properties.getEtcd().setRequestTimeout(Duration.ofSeconds(3));
        properties.getZookeeper().setAdministrationSessionTimeout(Duration.ofSeconds(7));
        properties.getRedis().setRequestTimeout(Duration.ofSeconds(4));

        assertThat(FenceLockEndpointAutoConfiguration.storeTimeout(properties)).isEqualTo(Duration.ofSeconds(6));
        properties.setBackend(FenceLockProperties.Backend.ZOOKEEPER);
        assertThat(FenceLockEndpointAutoConfiguration.storeTimeout(properties)).isEqualTo(Duration.ofSeconds(14));
        properties.setBackend(FenceLockProperties.Backend.REDIS);
        assertThat(FenceLockEndpointAutoConfiguration.storeTimeout(properties)).isEqualTo(Duration.ofSeconds(8));
    }

    @Test
    void runWhenNotExposedShouldNotCreateEndpoint() {
        this.runner.run((context) -> assertThat(context).doesNotHaveBean(FenceLockEndpoint.class));
    }

    @Test
    void runWhenExposedShouldListHeldLocksAndQueue() {
        this.runner
                .withPropertyValues("management.endpoints.web.exposure.include=fencelock")
                .run((context) -> {
                    FenceLockEndpoint endpoint = context.getBean(FenceLockEndpoint.class);
                    LockClient client = context.getBean(LockClient.class);
                    try (LockLease lease = client.acquire(LockRequest.builder("order:1")
                            .lockName("'order:' + #id")
                            .build())) {
                        assertThat(endpoint.heldLocks().backend()).isEqualTo("in-memory");
                        assertThat(endpoint.heldLocks().locks()).singleElement().satisfies((lock) -> {
                            assertThat(lock.resource()).isEqualTo("order:1");
                            assertThat(lock.lockName()).isEqualTo("'order:' + #id");
                            assertThat(lock.fencingToken()).isEqualTo(lease.fencingToken());
                            assertThat(lock.leaseId()).isEqualTo(lease.leaseId());
                            assertThat(lock.holds()).isOne();
                        });
                        FenceLockEndpoint.QueueDescriptor queue = endpoint.queue("order:1");
                        assertThat(queue.holder()).isNotNull();
                        assertThat(queue.holder().fencingToken()).isEqualTo(lease.fencingToken());
                        assertThat(queue.waiters()).isEmpty();
                    }
                    assertThat(endpoint.heldLocks().locks()).isEmpty();
                    assertThat(endpoint.queue("order:1").holder()).isNull();
                });
    }

    @Test
    void queueShouldShowEveryReaderAsAHolderAndEachEntrysMode() {
        this.runner
                .withPropertyValues("management.endpoints.web.exposure.include=fencelock")
                .run((context) -> {
                    FenceLockEndpoint endpoint = context.getBean(FenceLockEndpoint.class);
                    LockClient client = context.getBean(LockClient.class);
                    LockRequest read =
                            LockRequest.builder("catalog").mode(LockMode.SHARED).build();
                    LockLease first = client.acquire(read);
                    LockLease second = client.acquire(read);
                    CompletableFuture<LockLease> writer = client.acquireAsync(
                            LockRequest.builder("catalog").requestId("writer").build());
                    Awaitility.await()
                            .until(() -> endpoint.queue("catalog").waiters().size() == 1);

                    FenceLockEndpoint.QueueDescriptor queue = endpoint.queue("catalog");
                    assertThat(queue.holders())
                            .extracting(FenceLockEndpoint.QueueEntryDescriptor::fencingToken)
                            .containsExactly(first.fencingToken(), second.fencingToken());
                    assertThat(queue.holders())
                            .extracting(FenceLockEndpoint.QueueEntryDescriptor::mode)
                            .containsOnly(LockMode.SHARED);
                    assertThat(queue.holder().fencingToken()).isEqualTo(first.fencingToken());
                    assertThat(queue.waiters()).singleElement().satisfies((waiter) -> {
                        assertThat(waiter.requestId()).isEqualTo("writer");
                        assertThat(waiter.mode()).isEqualTo(LockMode.EXCLUSIVE);
                        assertThat(waiter.permits()).isOne();
                    });
                    assertThat(endpoint.heldLocks().locks())
                            .extracting(FenceLockEndpoint.HeldLockDescriptor::mode)
                            .containsOnly(LockMode.SHARED);
                    first.release();
                    second.release();
                    writer.get(10, TimeUnit.SECONDS).release();
                });
    }

    @Test
    void webDiscoveryShouldMapTheOperationsToTheirPaths() {
        this.runner
                .withPropertyValues("management.endpoints.web.exposure.include=fencelock")
                .run((context) -> {
                    WebEndpointDiscoverer discoverer = new WebEndpointDiscoverer(
                            context.getSourceApplicationContext(),
                            new ConversionServiceParameterValueMapper(),
                            EndpointMediaTypes.DEFAULT,
                            List.of(),
                            List.of(),
                            List.of(),
                            List.of(),
                            List.of());
                    ExposableWebEndpoint endpoint = discoverer.getEndpoints().stream()
                            .filter((candidate) -> candidate.getEndpointId().equals(EndpointId.of("fencelock")))
                            .findFirst()
                            .orElseThrow();
                    assertThat(endpoint.getOperations())
                            .extracting((operation) ->
                                    operation.getRequestPredicate().getHttpMethod() + " "
                                            + operation.getRequestPredicate().getPath())
                            .containsExactlyInAnyOrder(
                                    "GET fencelock", "GET fencelock/{resource}", "DELETE fencelock/{resource}");
                    try (LockLease lease = context.getBean(LockClient.class).acquire(LockRequest.of("order:3"))) {
                        WebOperation queue = endpoint.getOperations().stream()
                                .filter((operation) ->
                                        operation.getRequestPredicate().getHttpMethod() == WebEndpointHttpMethod.GET
                                                && operation
                                                        .getRequestPredicate()
                                                        .getPath()
                                                        .endsWith("}"))
                                .findFirst()
                                .orElseThrow();
                        Object result = queue.invoke(
                                new InvocationContext(SecurityContext.NONE, Map.of("resource", "order:3")));
                        assertThat(result)
                                .asInstanceOf(InstanceOfAssertFactories.type(FenceLockEndpoint.QueueDescriptor.class))
                                .satisfies((descriptor) -> assertThat(
                                                descriptor.holder().fencingToken())
                                        .isEqualTo(lease.fencingToken()));
                    }
                });
    }

    @Test
    void forceReleaseOfAFreeResourceShouldRemoveNothing() {
        this.runner
                .withPropertyValues(
                        "management.endpoints.web.exposure.include=fencelock",
                        "management.endpoint.fencelock.access=UNRESTRICTED")
                .run((context) -> {
                    FenceLockEndpoint.ForceReleaseDescriptor result =
                            context.getBean(FenceLockEndpoint.class).forceRelease("order:2", SecurityContext.NONE);
                    assertThat(result.released()).isFalse();
                    assertThat(result.removed()).isNull();
                });
    }

    @Test
    void invalidResourceShouldBeABadRequest() {
        this.runner
                .withPropertyValues(
                        "management.endpoints.web.exposure.include=fencelock", "fencelock.max-resource-length=8")
                .run((context) -> assertThatExceptionOfType(InvalidEndpointRequestException.class)
                        .isThrownBy(
                                () -> context.getBean(FenceLockEndpoint.class).queue("order:123456789")));
    }

    @Test
    void runWhenFenceLockIsDisabledShouldNotCreateEndpoint() {
        this.runner
                .withPropertyValues("management.endpoints.web.exposure.include=fencelock", "fencelock.enabled=false")
                .run((context) -> assertThat(context).doesNotHaveBean(FenceLockEndpoint.class));
    }
}
