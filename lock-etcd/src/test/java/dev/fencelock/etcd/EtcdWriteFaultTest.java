package dev.fencelock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencelock.LockBackendUnavailableException;
import dev.fencelock.LockClient;
import dev.fencelock.LockLease;
import dev.fencelock.LockRequest;
import dev.fencelock.test.etcd.EtcdClusterExtension;
import dev.fencelock.test.fault.GrpcFaultProxy;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Lock writes that etcd refuses or does not answer, injected by a gRPC proxy that answers the way
 * etcd does.
 *
 * <ul>
 *   <li>An overloaded etcd refuses requests with {@code RESOURCE_EXHAUSTED: etcdserver: too many
 *       requests} before proposing them. Such a refusal proves nothing was written, so the client
 *       backs off and tries again within the wait time, and never treats it as an unknown outcome
 *       (no abandon marker, no background clean-up adding load).
 *   <li>A write with no answer within the attempt timeout (a member that lost its leader, a lost
 *       response), or one that fails as {@code UNAVAILABLE}, is sent again instead of failing:
 *       puts and releases are guarded, so a second send creates the key or finds the one the first
 *       created.
 * </ul>
 */
class EtcdWriteFaultTest {

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
        // A send is given 2 s before it counts as unanswered: a refusal that a loaded machine delivers
        // late must not be taken for no answer (which would make the outcome unknown).
        this.client = LockClient.builder(EtcdLockBackend.builder()
                        .endpoints(this.proxy.endpoint())
                        .requestTimeout(Duration.ofSeconds(5))
                        .attemptTimeout(Duration.ofSeconds(2))
                        .build())
                .build();
        this.client.acquire(request("warm-up")).release(); // the session lease exists from here on
    }

    @AfterEach
    void close() {
        this.client.close();
        this.observer.close();
        this.proxy.close();
    }

    @Test
    void refusedAcquisitionsBackOffAndSucceedWithinTheirWaitTime() throws Exception {
        this.proxy.refuse(GrpcFaultProxy.TXN, 3, TOO_MANY_REQUESTS);
        LockLease lease = this.client.acquire(request("refused-three-times"));

        assertThat(this.proxy.refusedCalls(GrpcFaultProxy.TXN)).isEqualTo(3);
        assertThat(lease.isValid()).isTrue();
        assertThat(keys("/fencelock/locks/refused-three-times/")).hasSize(1);
        assertThat(keys("/fencelock/abandoned/")).isEmpty();
        lease.release();
    }

    @Test
    void anAcquisitionRefusedForItsWholeWaitFailsAndLeavesNothingBehind() throws Exception {
        this.proxy.refuseAll(GrpcFaultProxy.TXN, TOO_MANY_REQUESTS);
        assertThatThrownBy(() -> this.client.acquire(LockRequest.builder("always-refused")
                        .waitTimeout(Duration.ofSeconds(3))
                        .build()))
                .isInstanceOf(LockBackendUnavailableException.class)
                .hasMessageContaining("too many requests")
                .hasMessageContaining("nothing was written");
        int refused = this.proxy.refusedCalls(GrpcFaultProxy.TXN);
        this.proxy.forward(GrpcFaultProxy.TXN);

        // It tried again, and backed off instead of hammering: 20 ms doubling to 1 s (jittered) fits at
        // most a dozen tries in 3 s, however fast the machine; without back-off it would be hundreds.
        assertThat(refused).isBetween(2, 20);
        // An unknown outcome would now write an abandon marker and clean up; a known refusal does not.
        // A window for such writes to show, not a wait for a condition: a slow machine can only hide one.
        Thread.sleep(1500);
        assertThat(keys("/fencelock/abandoned/")).isEmpty();
        assertThat(keys("/fencelock/locks/always-refused/")).isEmpty();
    }

    @Test
    void aPutWithNoAnswerIsSentAgainAndTheAcquisitionSucceeds() throws Exception {
        this.proxy.stall(GrpcFaultProxy.TXN, 2);

        LockLease lease = this.client.acquire(request("stalled"));

        assertThat(lease.isValid()).isTrue();
        assertThat(keys("/fencelock/locks/stalled/"))
                .singleElement()
                .satisfies(kv -> assertThat(kv.getCreateRevision()).isEqualTo(lease.fencingToken()));
        assertThat(keys("/fencelock/abandoned/")).isEmpty();
        lease.release();
    }

    @Test
    void aPutWhoseAnswerIsLostIsSentAgainAndAdoptsTheKeyItCreated() throws Exception {
        this.proxy.dropResponses(GrpcFaultProxy.TXN, 1);

        LockLease lease = this.client.acquire(request("answer-lost"));

        // The first send created the key; the second found it on this session and took its token.
        assertThat(keys("/fencelock/locks/answer-lost/"))
                .singleElement()
                .satisfies(kv -> assertThat(kv.getCreateRevision()).isEqualTo(lease.fencingToken()));
        assertThat(keys("/fencelock/abandoned/")).isEmpty();
        lease.release();
        assertThat(keys("/fencelock/locks/answer-lost/")).isEmpty();
    }

    /**
     * A put whose answer was lost may have been applied even when etcd then refuses every resend as
     * overloaded. The attempt that runs out of time must abandon the key the first put created,
     * rather than leave it on the session, first in the resource's queue, until the orphan sweep.
     */
    @Test
    void aPutWithoutAnswerIsAbandonedEvenWhenItsResendsWereRefused() throws Exception {
        try (LockClient slow = LockClient.builder(EtcdLockBackend.builder()
                        .endpoints(this.proxy.endpoint())
                        .requestTimeout(Duration.ofSeconds(10))
                        .attemptTimeout(Duration.ofSeconds(10))
                        .sweepInterval(Duration.ofMinutes(10))
                        .build())
                .build()) {
            slow.acquire(request("warm-up-slow")).release();
            this.proxy.dropResponses(GrpcFaultProxy.TXN, 1);
            var attempt = slow.acquireAsync(LockRequest.builder("lost-then-refused")
                    .waitTimeout(Duration.ofSeconds(12))
                    .build());
            // The first put was applied; every send after it is refused before etcd proposes it. The
            // refusals must start before the put is sent again, 10 s after it: 8 s leave 2 s to spare.
            Awaitility.await()
                    .atMost(Duration.ofSeconds(8))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> !keys("/fencelock/locks/lost-then-refused/").isEmpty());
            this.proxy.refuseAll(GrpcFaultProxy.TXN, TOO_MANY_REQUESTS);

            assertThatThrownBy(() -> attempt.get(60, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(LockBackendUnavailableException.class)
                    .satisfies(failure ->
                            assertThat(failure.getCause().getMessage()).doesNotContain("nothing was written"));
            this.proxy.forward(GrpcFaultProxy.TXN);

            // The sweep is 10 min away: only the attempt's own abandon can remove it within 60 s.
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> keys("/fencelock/locks/lost-then-refused/").isEmpty());
        }
    }

    @Test
    void aPutThatFailsAsUnavailableIsSentAgainAfterABackOff() throws Exception {
        // What a client sees when the connection under a request breaks, or the member times it out.
        this.proxy.refuse(GrpcFaultProxy.TXN, 3, Status.UNAVAILABLE.withDescription("etcdserver: request timed out"));

        LockLease lease = this.client.acquire(request("unavailable"));

        assertThat(this.proxy.refusedCalls(GrpcFaultProxy.TXN)).isEqualTo(3);
        assertThat(keys("/fencelock/locks/unavailable/"))
                .singleElement()
                .satisfies(kv -> assertThat(kv.getCreateRevision()).isEqualTo(lease.fencingToken()));
        lease.release();
    }

    @Test
    void aReleaseWithNoAnswerIsSentAgain() throws Exception {
        LockLease lease = this.client.acquire(request("release-stalled"));
        this.proxy.stall(GrpcFaultProxy.TXN, 1);

        lease.release();

        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> keys("/fencelock/locks/release-stalled/").isEmpty());
    }

    private static LockRequest request(String resource) {
        return LockRequest.builder(resource).waitTimeout(Duration.ofSeconds(10)).build();
    }

    private List<KeyValue> keys(String prefix) throws Exception {
        return this.observer
                .getKVClient()
                .get(
                        ByteSequence.from(prefix, StandardCharsets.UTF_8),
                        GetOption.builder().isPrefix(true).withKeysOnly(true).build())
                .get(30, TimeUnit.SECONDS)
                .getKvs();
    }
}
