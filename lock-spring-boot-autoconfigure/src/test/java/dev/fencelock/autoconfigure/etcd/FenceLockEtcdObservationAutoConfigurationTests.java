package dev.fencelock.autoconfigure.etcd;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.autoconfigure.FenceLockAutoConfiguration;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The etcd client's gRPC calls, observed only when {@code fencelock.observation.etcd-grpc.enabled=true}. */
class FenceLockEtcdObservationAutoConfigurationTests {

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private final TestObservationRegistry registry = TestObservationRegistry.create();

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        FenceLockEtcdObservationAutoConfiguration.class,
                        FenceLockEtcdAutoConfiguration.class,
                        FenceLockAutoConfiguration.class))
                .withBean(ObservationRegistry.class, () -> this.registry)
                .withPropertyValues("fencelock.etcd.endpoints=" + etcd.cluster().endpointsCsv());
    }

    @Test
    void runWhenEnabledShouldObserveTheEtcdClientsGrpcCalls() {
        runner().withPropertyValues("fencelock.observation.etcd-grpc.enabled=true")
                .run((context) -> {
                    try (LockLease lease = context.getBean(LockClient.class).acquire(LockRequest.of("grpc:1"))) {
                        assertThat(lease.fencingToken()).isPositive();
                    }
                    assertThat(this.registry)
                            .hasObservationWithNameEqualTo("grpc.client")
                            .that()
                            .hasLowCardinalityKeyValue("rpc.service", "etcdserverpb.KV");
                });
    }

    @Test
    void runByDefaultShouldNotObserveGrpcCalls() {
        runner().run((context) -> {
            assertThat(context).doesNotHaveBean(EtcdClientBuilderCustomizer.class);
            try (LockLease lease = context.getBean(LockClient.class).acquire(LockRequest.of("grpc:2"))) {
                assertThat(lease.fencingToken()).isPositive();
            }
            assertThat(this.registry).doesNotHaveAnyObservation();
        });
    }
}
