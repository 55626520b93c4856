package dev.fencelock.test.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.etcd.EtcdLockBackend;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.fault.GrpcFaultProxy;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An overloaded etcd refuses requests with {@code RESOURCE_EXHAUSTED: etcdserver: too many
 * requests} before proposing them. Such a refusal proves nothing was written, so the client backs
 * off and tries again within the wait time, and never treats it as an unknown outcome (no abandon
 * marker, no background clean-up adding load). The refusals come from a gRPC proxy that answers
 * the way etcd does.
 */
class EtcdOverloadTest {

    private static final Status TOO_MANY_REQUESTS =
            Status.RESOURCE_EXHAUSTED.withDescription("etcdserver: too many requests");

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private GrpcFaultProxy proxy;

    private Client observer;

    private LockClient client;

    @BeforeEach
    void connect() {
        this.proxy = GrpcFaultProxy.forEndpoint(etcd.cluster().member(0).clientEndpoint());
        this.observer = Client.builder()
                .endpoints(etcd.endpoints().toArray(String[]::new))
                .build();
        this.client = LockClient.builder(EtcdLockBackend.builder()
                        .endpoints(this.proxy.endpoint())
                        .build())
                .build();
    }

    @AfterEach
    void close() {
        this.client.close();
        this.observer.close();
        this.proxy.close();
    }

    @Test
    void refusedAcquisitionsBackOffAndSucceedWithinTheirWaitTime() throws Exception {
        this.client.acquire(request("warm-up", Duration.ofSeconds(5))).release(); // session lease exists

        this.proxy.refuse(GrpcFaultProxy.TXN, 3, TOO_MANY_REQUESTS);
        LockLease lease = this.client.acquire(request("refused-three-times", Duration.ofSeconds(10)));

        assertThat(this.proxy.refusedCalls(GrpcFaultProxy.TXN)).isEqualTo(3);
        assertThat(lease.isValid()).isTrue();
        assertThat(count("/fencelock/locks/refused-three-times/")).isEqualTo(1);
        assertThat(count("/fencelock/abandoned/")).isZero();
        lease.release();
    }

    @Test
    void anAcquisitionRefusedForItsWholeWaitFailsAndLeavesNothingBehind() throws Exception {
        this.client.acquire(request("warm-up", Duration.ofSeconds(5))).release();

        this.proxy.refuseAll(GrpcFaultProxy.TXN, TOO_MANY_REQUESTS);
        assertThatThrownBy(() -> this.client.acquire(request("always-refused", Duration.ofSeconds(1))))
                .isInstanceOf(LockBackendUnavailableException.class)
                .hasMessageContaining("too many requests")
                .hasMessageContaining("nothing was written");
        int refused = this.proxy.refusedCalls(GrpcFaultProxy.TXN);
        this.proxy.forward(GrpcFaultProxy.TXN);

        // It backed off instead of hammering: 20 ms doubling to 1 s (jittered) fits a handful in 1 s.
        assertThat(refused).isBetween(2, 12);
        // An unknown outcome would now write an abandon marker and clean up; a known refusal does not.
        Thread.sleep(1500); // time for any background clean-up to show, not a wait for a condition
        assertThat(count("/fencelock/abandoned/")).isZero();
        assertThat(count("/fencelock/locks/always-refused/")).isZero();
    }

    private static LockRequest request(String resource, Duration wait) {
        return LockRequest.builder(resource).waitTimeout(wait).build();
    }

    private long count(String prefix) throws Exception {
        return this.observer
                .getKVClient()
                .get(
                        ByteSequence.from(prefix, StandardCharsets.UTF_8),
                        GetOption.builder().isPrefix(true).withCountOnly(true).build())
                .get(5, TimeUnit.SECONDS)
                .getCount();
    }
}
