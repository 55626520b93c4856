package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.fault.GrpcFaultProxy;
import io.grpc.Status;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The grant of a session lease that etcd does not answer in time, or fails as unavailable, is asked
 * again within the acquisition's wait time: a lease granted unheard-of holds no key and expires by
 * itself, so nothing is at stake. (A loaded etcd that is slow to grant the first lease of a client
 * must not fail that client's first lock.)
 */
class EtcdSessionGrantFaultTest {

    private static final String LEASE_GRANT = "etcdserverpb.Lease/LeaseGrant";

    @RegisterExtension
    static final EtcdClusterExtension etcd = EtcdClusterExtension.members(1);

    private GrpcFaultProxy proxy;

    private LockClient client;

    @BeforeEach
    void connect() {
        this.proxy = GrpcFaultProxy.forEndpoint(etcd.cluster().member(0).clientEndpoint());
        this.client = LockClient.builder(EtcdLockBackend.builder()
                        .endpoints(this.proxy.endpoint())
                        .requestTimeout(Duration.ofSeconds(1))
                        .build())
                .build();
    }

    @AfterEach
    void close() {
        this.client.close();
        this.proxy.close();
    }

    @Test
    void aGrantWithNoAnswerIsAskedAgainWithinTheWaitTime() {
        this.proxy.stall(LEASE_GRANT, 2);

        try (LockLease lease = this.client.acquire(request("order:1"))) {
            assertThat(lease.isValid()).isTrue();
        }
        assertThat(this.proxy.stalledCalls(LEASE_GRANT)).isEqualTo(2);
    }

    @Test
    void aGrantThatFailsAsUnavailableIsAskedAgainWithinTheWaitTime() {
        this.proxy.refuse(LEASE_GRANT, 3, Status.UNAVAILABLE.withDescription("etcdserver: leader changed"));

        try (LockLease lease = this.client.acquire(request("order:2"))) {
            assertThat(lease.isValid()).isTrue();
        }
        assertThat(this.proxy.refusedCalls(LEASE_GRANT)).isEqualTo(3);
    }

    private static LockRequest request(String resource) {
        return LockRequest.builder(resource).waitTimeout(Duration.ofSeconds(15)).build();
    }
}
