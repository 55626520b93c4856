package dev.fencelock.autoconfigure.etcd;

import dev.fencelock.etcd.EtcdLockBackend;
import io.micrometer.core.instrument.binder.grpc.ObservationGrpcClientInterceptor;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Observes every gRPC call of the auto-configured etcd client with Micrometer's {@link
 * ObservationGrpcClientInterceptor} ({@code grpc.client} timers and spans), when {@code
 * fencelock.observation.etcd-grpc.enabled=true}. Off by default: the etcd client's watches and
 * lease keep-alives are long-lived streams, whose observations last as long as the application and
 * would dominate traces.
 */
@AutoConfiguration(
        before = FenceLockEtcdAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnBooleanProperty(name = "fencelock.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty("fencelock.observation.etcd-grpc.enabled")
@ConditionalOnClass({EtcdLockBackend.class, ObservationRegistry.class, ObservationGrpcClientInterceptor.class})
@ConditionalOnBean(ObservationRegistry.class)
public final class FenceLockEtcdObservationAutoConfiguration {

    @Bean
    EtcdClientBuilderCustomizer etcdGrpcObservation(ObservationRegistry registry) {
        return (builder) -> builder.interceptor(new ObservationGrpcClientInterceptor(registry));
    }
}
